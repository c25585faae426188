// Package poolkeys holds the keys the kubernetes-nodes chart defines in a
// pool's values, map by map: the planner warns UnknownField outside them (a
// key the chart does not read has no effect, and is most often a
// misspelling), and the What-if takes a chart default only at one of them.
package poolkeys

import "github.com/cozystack/kubernetes-worker-image/internal/chartvalues"

var (
	// Spec are the keys of a pool's spec, the chart's top level.
	Spec = chartvalues.NewKeys("cluster", "storageClass", "minReplicas", "maxReplicas", "instanceType", "diskSize",
		"roles", "resources", "podCpuLimit", "podCpuRequest", "gpus", "kubelet", "logSerialConsole",
		"maxUnhealthy", "nodeStartupTimeout", "readyUnknownTimeout", "readyFalseTimeout",
		"maxNodeProvisionTime", "version", "talos", "images", "osImage")
	// Talos are the keys under talos.
	Talos = chartvalues.NewKeys("version", "schematicID", "imageFactoryURL", "installerRepository", "registryMirrors")
	// OSImage are the keys under osImage.
	OSImage = chartvalues.NewKeys("builtin", "factory")
	// Builtin are the keys under osImage.builtin.
	Builtin = chartvalues.NewKeys("schematicID", "version")
	// Factory are the keys under osImage.factory.
	Factory = chartvalues.NewKeys("schematicID", "version", "imageFactoryURL")
)
