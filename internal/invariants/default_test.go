package invariants_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

var defaultAnnotations = []string{storage.VirtDefaultAnnotation, storage.DefaultAnnotation, storage.BetaDefaultAnnotation}

// TestMovingTheDefault (invariant 5): moving the cluster's default
// StorageClass (any is-default annotation of any tier added, removed or
// changed on any class) never turns a planned pool that has already cloned
// its golden, its bound disks all on the class the plan writes, into a
// refused one, nor changes that class: the class is frozen from the disks.
// Excused: a golden whose own class rests on the default (nothing of it
// names a class, and it has no PVC).
func TestMovingTheDefault(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := wellFormedScenario(t)
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		var held []int
		for i, p := range s.Pools {
			res, err := plan.Plan(p, cat, snap)
			if err != nil || res.Source != plan.Clone || res.Disk.Spec.Storage.StorageClassName == nil {
				continue
			}
			class := *res.Disk.Spec.Storage.StorageClassName
			var entry *catalog.Entry
			if f, ok := plantest.Flavor(p); ok && cat.Enabled() {
				if e, found := cat.Lookup(f); found {
					entry = &e
				}
			}
			if g := resolveGolden(s.State, res.Golden, entry); g.FromDefault && !g.HasPVC {
				// The golden's class rests on the default: nothing of it
				// names one, and it has no PVC yet (or any more), which CDI
				// creates on the default of the day.
				continue
			}
			disks := stateindex.Of(snap).ClonedDisks(p.Namespace, naming.PoolCAPIName(p.Name), res.Golden)
			if len(disks) == 0 {
				continue
			}
			onClass := true
			for _, d := range disks {
				onClass = onClass && d.PVC != nil && d.PVC.Status.Phase == "Bound" && d.Class() == class
			}
			if onClass {
				held = append(held, i)
			}
		}
		if len(held) == 0 {
			return
		}

		for range 3 {
			moveDefault(t, s, held, cat, snap)
		}
	})
}

// moveDefault adds, removes or changes default annotations of every tier on
// the classes, and plans the held pools again.
func moveDefault(t *rapid.T, s plantest.Scenario, held []int, cat *catalog.Catalog, snap *state.Snapshot) {
	moved := plantest.CopyState(s.State)
	for i := range moved.StorageClasses {
		sc := &moved.StorageClasses[i]
		for _, a := range defaultAnnotations {
			switch rapid.IntRange(0, 3).Draw(t, "move") {
			case 1:
				delete(sc.Annotations, a)
			case 2:
				if sc.Annotations == nil {
					sc.Annotations = map[string]string{}
				}
				sc.Annotations[a] = "true"
			case 3:
				if sc.Annotations == nil {
					sc.Annotations = map[string]string{}
				}
				sc.Annotations[a] = "false"
			}
		}
	}
	after := state.NewSnapshot(moved)
	for _, i := range held {
		res, err := plan.Plan(s.Pools[i], cat, after)
		if err != nil {
			t.Fatalf("pool %d, planned on its disks' class, is refused once the default moved to %q: %v", i, stateindex.Of(after).DefaultClass().Name, refusals(err))
		}
		if *res.Disk.Spec.Storage.StorageClassName != *mustPlan(t, s.Pools[i], cat, snap).Disk.Spec.Storage.StorageClassName {
			t.Fatalf("pool %d changed class when the default moved", i)
		}
	}
}

func mustPlan(t *rapid.T, p plan.Pool, cat *catalog.Catalog, snap *state.Snapshot) plan.Result {
	res, err := plan.Plan(p, cat, snap)
	if err != nil {
		t.Fatalf("planned once, refused the second time: %v", err)
	}
	return res
}
