package helm_test

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestPlanEntryAllocates: a renderer's call allocates the entry's text and
// what the plan itself needs (three allocations against a realistic
// cluster), never the disk's description, which stays on the stack, nor
// the DataVolume object's maps. One more is a regression of the
// renderer's speed.
func TestPlanEntryAllocates(t *testing.T) {
	snap := state.NewSnapshot(fixtures.State(state.AllKinds, fixtures.Cluster()...))
	cat := fleet.DefaultCatalog()
	for name, c := range map[string]struct {
		spec map[string]any
		want float64
	}{
		"http":  {map[string]any{"cluster": "demo", "diskSize": "20Gi", "storageClass": "replicated"}, 3},
		"clone": {map[string]any{"cluster": "demo", "diskSize": "20Gi", "storageClass": "replicated", "osImage": map[string]any{"builtin": map[string]any{}}}, 3},
	} {
		pool := plan.DecodePool("tenant-demo", "demo-md0", c.spec)
		if _, err := helm.PlanEntry(pool, cat, snap); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := testing.AllocsPerRun(50, func() { _, _ = helm.PlanEntry(pool, cat, snap) }); got > c.want {
			t.Errorf("%s: PlanEntry allocates %v times, want at most %v", name, got, c.want)
		}
	}
}
