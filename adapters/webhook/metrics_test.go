package webhook_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// Admissions, refusals by reason and latency are on controller-runtime's
// registry, which the manager's metrics endpoint serves.
func TestMetrics(t *testing.T) {
	count := func(name string, labels map[string]string) float64 {
		t.Helper()
		families, err := metrics.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, f := range families {
			if f.GetName() != name {
				continue
			}
		metric:
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
						continue metric
					}
				}
				switch {
				case m.Counter != nil:
					total += m.GetCounter().GetValue()
				case m.Histogram != nil:
					total += float64(m.GetHistogram().GetSampleCount())
				}
			}
		}
		return total
	}
	refused := map[string]string{"resource": "kubernetesnodes", "subject": "pool", "outcome": "refused"}
	mismatch := map[string]string{"resource": "kubernetesnodes", "reason": "StorageClassMismatch"}
	pending := map[string]string{"resource": "kubernetesnodes", "reason": "GoldenPending"}
	before := []float64{
		count("worker_image_webhook_admissions_total", refused),
		count("worker_image_webhook_refusals_total", mismatch),
		count("worker_image_webhook_warnings_total", pending),
		count("worker_image_webhook_admission_duration_seconds", refused),
	}

	v := validator(cluster()...)
	answer(v, poolKind, request(t, admissionv1.Create, poolKind, pool("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass})), nil))
	answer(v, poolKind, request(t, admissionv1.Create, poolKind, pool("tenant-a", "demo-md1", builtin(map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": PendingVersion}}})), nil))

	after := []float64{
		count("worker_image_webhook_admissions_total", refused),
		count("worker_image_webhook_refusals_total", mismatch),
		count("worker_image_webhook_warnings_total", pending),
		count("worker_image_webhook_admission_duration_seconds", refused),
	}
	for i := range before {
		assert.Equal(t, before[i]+1, after[i], "metric %d", i)
	}
	problems, err := testutil.GatherAndLint(metrics.Registry, "worker_image_webhook_admissions_total", "worker_image_webhook_refusals_total",
		"worker_image_webhook_warnings_total", "worker_image_webhook_admission_duration_seconds")
	assert.NoError(t, err)
	assert.Empty(t, problems, "the metrics follow Prometheus' conventions")
}
