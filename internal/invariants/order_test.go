package invariants_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestListOrderDecidesNothing (invariant 10): the order in which the cluster
// lists its objects, and the order of the pools, change no plan. Disks on
// several classes are refused, never resolved by list order; the default within
// a tier is the newest, then the first by name; of a driver's
// VolumeSnapshotClasses the planner needs only whether one exists, however they
// are listed. (A broken cluster with two objects of one name is left out: which
// one a reader keeps is its own business.)
func TestListOrderDecidesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := plantest.Scenarios(plantest.Options{}).Draw(t, "scenario")
		cat := catalog.Compile(s.Catalog)
		want := plan.PlanAll(s.Pools, cat, state.NewSnapshot(s.State))

		st := plantest.CopyState(s.State)
		st.StorageClasses = rapid.Permutation(st.StorageClasses).Draw(t, "storageClasses")
		st.PersistentVolumeClaims = rapid.Permutation(st.PersistentVolumeClaims).Draw(t, "pvcs")
		st.DataVolumes = rapid.Permutation(st.DataVolumes).Draw(t, "dataVolumes")
		st.StorageProfiles = rapid.Permutation(st.StorageProfiles).Draw(t, "storageProfiles")
		st.CSIDrivers = rapid.Permutation(st.CSIDrivers).Draw(t, "csiDrivers")
		st.VolumeSnapshotClasses = rapid.Permutation(st.VolumeSnapshotClasses).Draw(t, "volumeSnapshotClasses")
		st.PersistentVolumes = rapid.Permutation(st.PersistentVolumes).Draw(t, "persistentVolumes")
		order := rapid.Permutation(indexes(len(s.Pools))).Draw(t, "poolOrder")
		pools := make([]plan.Pool, len(order))
		for i, j := range order {
			pools[i] = s.Pools[j]
		}
		got := plan.PlanAll(pools, cat, state.NewSnapshot(st))
		for i, j := range order {
			if d := sameResult(want[j], got[i]); d != "" {
				t.Fatalf("pool %d plans differently with the lists reordered: %s", j, d)
			}
		}
	})
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
