package plan_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestPlanAllIsPlanPerPool: a fleet large enough to be planned in
// parallel gets, at each index, exactly what Plan returns for that pool
// (and from helm.PlanEntries what helm.PlanEntry returns):
// clones, HTTP imports, refusals and warnings mixed, and pools that share
// one osImage (a caller's pools may share pointers; a plan only reads
// them). Under -race it also shows the plans share nothing they write.
func TestPlanAllIsPlanPerPool(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	size := fleet.Size{Goldens: 10, StorageClasses: 3, PVCs: 500, Namespaces: 40}
	pools := fleet.Pools(size, 2000)
	shared := pools[0].Spec.OSImage
	for i := range pools {
		switch {
		case i%7 == 0:
			pools[i].Spec.OSImage = nil // HTTP
		case i%11 == 0:
			pools[i].Name = "Not_A_Name" // refused
		case i%13 == 0:
			pools[i].Spec.DiskSize = "1Gi" // smaller than its golden: refused
		case i%5 == 0:
			pools[i].Spec.OSImage = shared
		}
	}
	cat := catalog.Compile(fleet.Catalog(size))
	snap := state.NewSnapshot(fleet.State(size))

	got, entries := plan.PlanAll(pools, cat, snap), helm.PlanEntries(pools, cat, snap)
	require.Len(t, got, len(pools))
	require.Len(t, entries, len(pools))
	outcomes := map[plan.Outcome]int{}
	for i, p := range pools {
		want, _ := plan.Plan(p, cat, snap)
		if !assert.Equal(t, want, got[i], "pool %d (%s/%s)", i, p.Namespace, p.Name) {
			return
		}
		entry, _ := helm.PlanEntry(p, cat, snap)
		if !assert.Equal(t, entry, entries[i], "pool %d (%s/%s)", i, p.Namespace, p.Name) {
			return
		}
		outcomes[got[i].Outcome]++
	}
	assert.Positive(t, outcomes[plan.Planned])
	assert.Positive(t, outcomes[plan.Refused])
}
