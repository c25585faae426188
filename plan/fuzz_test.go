package plan_test

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// FuzzPlan plans arbitrary pool values against a full and an empty state:
// no panic, and every failure is a typed refusal with a known reason and a
// field.
func FuzzPlan(f *testing.F) {
	f.Add("demo-md0", "demo", "20Gi", "replicated", "", "", "", uint8(1))
	f.Add("demo-md0", "demo", "6144Mi", "", plan.DefaultSchematicID, plan.DefaultVersion, "", uint8(1))
	f.Add("x", "", "-1", "local", "ABC", "v01.2.3", "ftp://x", uint8(3))
	f.Add("demo-md1", "demo", "1e3", "", "abc", "v1.2.3", "https://f.example/", uint8(2))
	f.Add("demo-", "demo", "", "", "", "", "", uint8(0))
	full := state.NewSnapshot(fullState())
	cat := enabledCatalog()
	f.Fuzz(func(t *testing.T, name, cluster, diskSize, class, id, version, url string, mode uint8) {
		p := plan.Pool{Namespace: tenantNS, Name: name, Spec: plan.DefaultPoolSpec(cluster)}
		p.Spec.DiskSize, p.Spec.StorageClass = diskSize, class
		switch mode % 4 {
		case 1:
			p.Spec.OSImage = &plan.OSImage{Builtin: &plan.Builtin{SchematicID: id, Version: version}}
		case 2:
			p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{SchematicID: id, Version: version, ImageFactoryURL: url}}
		case 3:
			p.Spec.OSImage = &plan.OSImage{Builtin: &plan.Builtin{}, Factory: &plan.Factory{}}
		}
		for _, snap := range []*state.Snapshot{full, nil} {
			res, err := plan.Plan(p, cat, snap)
			if (err == nil) != (res.Outcome == plan.Planned) {
				t.Fatalf("outcome %q with error %v", res.Outcome, err)
			}
			if err == nil {
				continue
			}
			rs := guard.Refusals(err)
			if len(rs) == 0 {
				t.Fatalf("untyped failure: %v", err)
			}
			for _, r := range rs {
				if !r.Reason.Known() || r.Reason.Severity() != guard.Refuse || r.Field == "" {
					t.Fatalf("refusal without a known reason or a field: %#v", r)
				}
			}
		}
	})
}
