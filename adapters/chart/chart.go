// Package chart is the worker-image Helm chart: the admission webhook (two
// replicas, a PodDisruptionBudget, the failurePolicy of its choice, TLS
// from cert-manager or a given Secret) and the controller (one replica,
// leader election), least-privilege RBAC for each, and monitoring (a
// ServiceMonitor, a PrometheusRule with alerts, a Grafana dashboard).
// values.yaml documents every value.
//
// It is the one description of the deployment: helm install installs it
// from this folder, and `worker-image webhook manifests` renders its
// webhook from the copy embedded here, for kubectl apply.
package chart

import (
	"embed"
	"io/fs"
)

// The templates' glob includes _helpers.tpl, which embedding a folder
// would leave out.
//
//go:embed Chart.yaml values.yaml templates/* dashboards/*
var files embed.FS

// Files are the chart as Helm loads it from this folder: Chart.yaml,
// values.yaml, templates/ and dashboards/.
func Files() fs.FS { return files }
