package plan_test

import (
	"fmt"
	"testing"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// BenchmarkPlan measures one pool's plan with the state already indexed.
// The builtin pool plans a healthy clone on fullState, which holds every
// kind CDI's rules read (CDIConfig, the golden's volume), so that it runs
// through every check: no finding at all.
func BenchmarkPlan(b *testing.B) {
	snap := state.NewSnapshot(fullState())
	cat := enabledCatalog()
	factory := httpPool()
	factory.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{Flavor: catalog.Flavor{SchematicID: "abc", Version: "v1.12.0"}}}
	pools := map[string]plan.Pool{"http": httpPool(), "factory": factory, "builtin": builtinPool()}
	for _, name := range []string{"http", "factory", "builtin"} {
		p := pools[name]
		if res, err := plan.Plan(p, cat, snap); err != nil || len(res.Warnings) != 0 {
			b.Fatalf("%s: the benchmark's plan is not clean: %v %v", name, err, res.Warnings)
		}
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

// BenchmarkFleet plans a fleet against a large cluster (1,000 goldens, 50
// classes, 100,000 PVCs), indexing the state and compiling the catalog
// inside the loop: what a controller pays per full resync.
func BenchmarkFleet(b *testing.B) {
	st := fleetState(fleet.Large)
	values := fleet.Catalog(fleet.Large)
	for _, n := range []int{10000, 20000} {
		pools := fleet.Pools(fleet.Large, n)
		b.Run(fmt.Sprintf("pools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				results := plan.PlanAll(pools, catalog.Compile(values), state.NewSnapshot(st))
				if err := results[0].Refusals.Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("pools=%d/indexed", n), func(b *testing.B) {
			snap, cat := state.NewSnapshot(st), catalog.Compile(values)
			b.ReportAllocs()
			for b.Loop() {
				plan.PlanAll(pools, cat, snap)
			}
		})
	}
}

// BenchmarkPlanAllocsFlat shows a single pool's plan costs the same
// allocations whatever the size of the indexed state.
func BenchmarkPlanAllocsFlat(b *testing.B) {
	for _, s := range []fleet.Size{{Goldens: 10, StorageClasses: 5, PVCs: 1000, Namespaces: 10}, fleet.Large} {
		snap, cat := state.NewSnapshot(fleetState(s)), catalog.Compile(fleet.Catalog(s))
		p := fleet.Pools(s, 1)[0]
		b.Run(fmt.Sprintf("goldens=%d/pvcs=%d", s.Goldens, s.PVCs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := plan.Plan(p, cat, snap); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fleetState is fleet.State with CDI's config, without which CDI renders
// no disk.
func fleetState(s fleet.Size) *state.State {
	st := fleet.State(s)
	if len(st.CDIConfigs) == 0 {
		st.CDIConfigs = []cdiv1.CDIConfig{*fixtures.CDIConfig(fixtures.DefaultOverhead)}
	}
	return st
}
