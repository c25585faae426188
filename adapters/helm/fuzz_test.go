package helm_test

import (
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// FuzzPoolValues feeds arbitrary YAML as pool values: reading and planning
// them never panics, every failure is a typed refusal with a field, and a
// planned pool renders the chart's text.
func FuzzPoolValues(f *testing.F) {
	f.Add([]byte("cluster: demo"))
	f.Add([]byte("cluster: demo\nosImage: {builtin: {version: 1.13}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var values map[string]any
		if yaml.Unmarshal(data, &values) != nil {
			return
		}
		res, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", values), enabledCatalog(), cluster())
		if err != nil {
			checkRefusals(t, err)
			return
		}
		if _, err := helm.DiskText(res, helm.ChartIndent); err != nil {
			t.Fatalf("a planned pool renders: %v", err)
		}
	})
}

func checkRefusals(t *testing.T, err error) {
	t.Helper()
	rs := fixtures.Refusals(err)
	if len(rs) == 0 {
		t.Fatalf("an error that is not a refusal: %v", err)
	}
	for _, r := range rs {
		if !fixtures.IsRefusalReason(r.Reason) || r.Field == "" {
			t.Fatalf("a refusal without a refusal's reason or a field: %#v", r)
		}
	}
}
