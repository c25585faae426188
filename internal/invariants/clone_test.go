package invariants_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// TestPlannedCloneMatchesGolden (invariant 4): a planned clone's
// storageClassName is the golden's resolved class, and the class the plan
// reports (a golden on no class at all has none to match: CDI compares its
// volume's driver); its size clears CDI's size checks:
// the golden PVC's request (before the PVC exists, what CDI renders for the
// golden's DataVolume, or its entry) is at most the disk's rendered
// request, and a Block golden's at most the disk's size raised to the
// StorageProfile's minimum (a Block disk of a Filesystem golden is left to
// CDI's size detection); its capacity plays no part. Where either side
// rests on something not observed (the golden's objects, the pool's disks,
// the StorageClasses), the comparison could not be made and the plan says
// so with StateUnverified; a clone whose class could not be resolved at all
// is left to the cluster only then. An explicit pool class is written as
// given.
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
			if !g.Exists && hasReason(res.Warnings, guard.GoldenUnavailable) && (entry == nil || g.FromDefault) {
				// A golden gone from under a pool that cloned it (planned, with
				// GoldenUnavailable), and no longer served, or served on no
				// class its entry names: there is no class of it to match until
				// it is back.
				continue
			}
			if g.FromDefault && g.HasPVC {
				// Nothing of the golden names its class: disks the pool
				// already cloned from it prove the class its PVC is on
				// (moving the default never refuses such
				// a pool). A golden with no PVC is re-created on the
				// default, whatever its old clones are on.
				if proven := stateindex.Of(snap).ClonedClasses(p.Namespace, naming.PoolCAPIName(p.Name), res.Golden); len(proven) == 1 {
					g.Class, g.ClassKnown = proven[0], true
				}
			}
			if !g.ClassKnown {
				t.Fatalf("pool %d: the golden's class is not known (%s) and nothing says so", i, describeGolden(s.State, res.Golden))
			}
			if !g.SizeKnown {
				t.Fatalf("pool %d: the golden's size is not known (%s) and nothing says so", i, describeGolden(s.State, res.Golden))
			}
			if *class != g.Class && !g.Classless {
				t.Fatalf("pool %d: disk on %v, golden %s on %q (%s), warnings %v", i, res.StorageClass, res.Golden, g.Class, describeGolden(s.State, res.Golden), warnings(res.Warnings))
			}
			if !stateindex.Of(snap).Observed(state.StorageProfile) || !stateindex.Of(snap).Observed(state.CDIConfig) {
				continue
			}
			c := cluster{s.State}
			size := res.Disk.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
			r := c.render(class, size)
			gc, ok := c.goldenClaim(res.Golden, goldenSourceOf(s.State, res.Golden, entry))
			switch {
			case !ok || r.Failure != "":
			case gc.Block && gc.Request.Value() > r.Raw:
				t.Fatalf("pool %d: disk of %s (%d raised), Block golden %s requests %s", i, size.String(), r.Raw, res.Golden, gc.Request.String())
			case !gc.Block && !r.Block && gc.Request.Value() > r.Request:
				t.Fatalf("pool %d: disk of %s renders %d, golden %s requests %s", i, size.String(), r.Request, res.Golden, gc.Request.String())
			}
		}
	})
}
