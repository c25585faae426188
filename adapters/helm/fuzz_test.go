package helm_test

import (
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// FuzzPoolValues feeds arbitrary YAML as pool values: reading them never
// panics, every failure is a typed refusal with a field, and what reads
// plans and, when planned, renders the chart's text.
func FuzzPoolValues(f *testing.F) {
	f.Add([]byte("cluster: demo"))
	f.Add([]byte("cluster: demo\nosImage: {builtin: {version: 1.13}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var values map[string]any
		if yaml.Unmarshal(data, &values) != nil {
			return
		}
		pool, err := helm.Pool(tenantNS, "demo-md0", values)
		if err != nil {
			checkRefusals(t, err)
			return
		}
		res, err := plan.Plan(pool, enabledCatalog(), cluster())
		if err != nil {
			checkRefusals(t, err)
			return
		}
		if _, err := helm.DiskText(res, helm.ChartIndent); err != nil {
			t.Fatalf("a planned pool renders: %v", err)
		}
	})
}

// FuzzCatalogValues feeds arbitrary YAML as catalog values.
func FuzzCatalogValues(f *testing.F) {
	f.Add([]byte("enabled: true"))
	f.Add([]byte("images: [{schematicID: a, version: v1.0.0, storage: 6}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var values map[string]any
		if yaml.Unmarshal(data, &values) != nil {
			return
		}
		if _, err := helm.CatalogValues(values); err != nil {
			checkRefusals(t, err)
		}
	})
}

func checkRefusals(t *testing.T, err error) {
	t.Helper()
	rs := guard.Refusals(err)
	if len(rs) == 0 {
		t.Fatalf("an error that is not a refusal: %v", err)
	}
	for _, r := range rs {
		if !r.Reason.Known() || r.Field == "" {
			t.Fatalf("a refusal without a known reason or a field: %#v", r)
		}
	}
}
