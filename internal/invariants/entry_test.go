package invariants_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestPlanEntryIsPlanThenText: helm.PlanEntry, which never builds the
// DataVolume, is plan.Plan followed by helm.DiskText at the chart's
// indentation, for every pool and cluster: the same error (the same
// refusals), the same warnings, the same source, golden and installer
// image, and the same text byte for byte; a refused pool has no text.
// helm.PlanEntries is helm.PlanEntry per pool.
func TestPlanEntryIsPlanThenText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := plantest.Options{Inconsistent: rapid.Bool().Draw(t, "inconsistent")}
		s := plantest.Scenarios(opts).Draw(t, "scenario")
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		if rapid.Bool().Draw(t, "offline") {
			snap = nil
		}
		if rapid.Bool().Draw(t, "no catalog") {
			cat = nil
		}
		fleet := helm.PlanEntries(s.Pools, cat, snap)
		for i, p := range s.Pools {
			res, _ := plan.Plan(p, cat, snap)
			e, err := helm.PlanEntry(p, cat, snap)
			if !sameError(err, res.Refusals) || !sameError(err, e.Refusals) {
				t.Fatalf("pool %d: PlanEntry returned %v, its entry holds %v, Plan refused %v", i, err, e.Refusals, res.Refusals)
			}
			if e.Namespace != p.Namespace || e.Name != p.Name || e.Outcome != res.Outcome || !equality.Semantic.DeepEqual(e.Warnings, res.Warnings) {
				t.Fatalf("pool %d: entry %s/%s %s warned %v, Plan %s %v", i, e.Namespace, e.Name, e.Outcome, e.Warnings, res.Outcome, res.Warnings)
			}
			if !equality.Semantic.DeepEqual(fleet[i], e) {
				t.Fatalf("pool %d: PlanEntries wrote %+v, PlanEntry %+v", i, fleet[i], e)
			}
			if res.Outcome != plan.Planned {
				if e.Source != "" || e.Golden != "" || e.InstallerImage != "" || e.Text != "" {
					t.Fatalf("pool %d: a refused pool's entry holds %+v", i, e)
				}
				continue
			}
			want, err := helm.DiskText(res, helm.ChartIndent)
			if err != nil {
				t.Fatalf("pool %d: DiskText of a planned pool: %v", i, err)
			}
			if e.Text != want || e.Source != res.Source || e.Golden != res.Golden || e.InstallerImage != res.InstallerImage {
				t.Fatalf("pool %d: entry %s %q %q\n%s\nPlan then DiskText: %s %q %q\n%s", i,
					e.Source, e.Golden, e.InstallerImage, e.Text, res.Source, res.Golden, res.InstallerImage, want)
			}
		}
	})
}
