package webhook

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The webhook's metrics, served on the manager's metrics endpoint beside
// controller-runtime's own (controller_runtime_webhook_requests_total and
// its latency, per path). Labels: resource is kubernetesnodes or
// helmreleases; subject is pool, catalog or none (a HelmRelease of another
// chart, a request that does not decode); outcome is one of admitted,
// refused, unchanged, skipped, bad-request and failed; operation is CREATE,
// UPDATE, DELETE, CONNECT, or invalid for any other (a bad request).
var (
	admissions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "worker_image_webhook_admissions_total",
		Help: "Admission requests decided, by resource, subject, operation and outcome.",
	}, []string{"resource", "subject", "operation", "outcome"})
	refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "worker_image_webhook_refusals_total",
		Help: "Refusals that denied an admission request, by resource, subject and reason.",
	}, []string{"resource", "subject", "reason"})
	warnings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "worker_image_webhook_warnings_total",
		Help: "Warnings returned with an admission response, by resource, subject and reason (a refusal an unchanged update kept is counted here).",
	}, []string{"resource", "subject", "reason"})
	latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "worker_image_webhook_admission_duration_seconds",
		Help:    "Time to decide an admission request (decode, read the cache, plan or render), by resource, subject and outcome.",
		Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
	}, []string{"resource", "subject", "outcome"})
)

func init() {
	metrics.Registry.MustRegister(admissions, refusals, warnings, latency)
}

// observe counts one decision and its time.
func observe(resource, operation string, d decision, took time.Duration) {
	admissions.WithLabelValues(resource, d.subject, operation, d.outcome).Inc()
	latency.WithLabelValues(resource, d.subject, d.outcome).Observe(took.Seconds())
	if d.outcome == outcomeRefused {
		for i, reason := range d.refused.reasons {
			refusals.WithLabelValues(resource, d.subject, string(reason)).Add(float64(d.refused.n[i]))
		}
	}
	for i, reason := range d.warned.reasons {
		warnings.WithLabelValues(resource, d.subject, string(reason)).Add(float64(d.warned.n[i]))
	}
}
