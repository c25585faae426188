package plan_test

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// BenchmarkPlan measures one pool's plan with the state already indexed.
func BenchmarkPlan(b *testing.B) {
	snap := state.NewSnapshot(fullState())
	cat := enabledCatalog()
	factory := httpPool()
	factory.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{SchematicID: "abc", Version: "v1.12.0"}}
	pools := map[string]plan.Pool{"http": httpPool(), "factory": factory, "builtin": builtinPool()}
	for _, name := range []string{"http", "factory", "builtin"} {
		p := pools[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := plan.Plan(p, cat, snap); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
