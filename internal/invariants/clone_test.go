package invariants_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// TestPlannedCloneMatchesGolden (invariant 4): a planned clone's
// storageClassName is the golden's resolved class, and the class the plan
// reports; its size is at least the golden's. Where either side rests on
// something not observed (the golden's objects, the pool's disks, the
// StorageClasses), the comparison could not be made and the plan says so
// with StateUnverified; a clone whose class could not be resolved at all
// is left to the cluster only then. An explicit pool class is written as
// given. Excused: the golden's capacity unseen without a word (gap 3).
func TestPlannedCloneMatchesGolden(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s plantest.Scenario
		if rapid.Bool().Draw(t, "fullyObserved") {
			s = wellFormedScenario(t)
		} else {
			s = plantest.Scenarios(plantest.Options{}).Draw(t, "scenario")
		}
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		for i, p := range s.Pools {
			res, err := plan.Plan(p, cat, snap)
			if err != nil || res.Source != plan.Clone {
				continue
			}
			class := res.Disk.Spec.Storage.StorageClassName
			if class == nil {
				if res.StorageClass != (storage.Resolution{From: storage.Cluster}) || !hasReason(res.Warnings, guard.StateUnverified) {
					t.Fatalf("pool %d: clone left to the cluster's class (%v) without StateUnverified: %v", i, res.StorageClass, res.Warnings)
				}
				continue
			}
			if *class != res.StorageClass.Name || *class == "" {
				t.Fatalf("pool %d: disk written on %q, plan reports %v", i, *class, res.StorageClass)
			}
			if p.Spec.StorageClass != "" && (*class != p.Spec.StorageClass || res.StorageClass.From != storage.Explicit) {
				t.Fatalf("pool %d: explicit class %q written as %v", i, p.Spec.StorageClass, res.StorageClass)
			}
			var entry *catalog.Entry
			if f, ok := plantest.Flavor(p); ok && cat.Enabled() {
				if e, found := cat.Lookup(f); found {
					entry = &e
				}
			}
			g := resolveGolden(s.State, res.Golden, entry)
			if hasReason(res.Warnings, guard.StateUnverified) {
				continue
			}
			if g.FromDefault {
				// Nothing of the golden names its class: disks the pool
				// already cloned from it prove the class (SPEC section 5,
				// moving the default never refuses such a pool).
				if proven := snap.ClonedClasses(p.Namespace, naming.PoolCAPIName(p.Name), res.Golden); len(proven) == 1 {
					g.Class, g.ClassKnown = proven[0], true
				}
			}
			if !g.ClassKnown {
				t.Fatalf("pool %d: the golden's class is not known (%s) and nothing says so", i, describeGolden(s.State, res.Golden))
			}
			if !g.SizeKnown {
				t.Fatalf("pool %d: the golden's size is not known (%s) and nothing says so", i, describeGolden(s.State, res.Golden))
			}
			if *class != g.Class {
				t.Fatalf("pool %d: disk on %v, golden %s on %q (%s), warnings %v", i, res.StorageClass, res.Golden, g.Class, describeGolden(s.State, res.Golden), warnings(res.Warnings))
			}
			size := res.Disk.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
			if g.SizeKnown && size.Cmp(g.Size) < 0 {
				t.Fatalf("pool %d: disk of %s, golden %s of %s", i, size.String(), res.Golden, g.Size.String())
			}
		}
	})
}
