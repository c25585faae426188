package plan_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// Plan and prune never disagree: every golden a planned pool clones is a
// golden prune keeps, whichever way the pool is declared (its
// KubernetesNodes, its kubernetes-nodes HelmRelease, or both), and its
// consumers list the pool. Prune runs against a catalog that manages no
// golden, so that every golden in the cluster is a candidate to delete.
func TestPlannedGoldenIsNeverSafeToDelete(t *testing.T) {
	checked := 0
	rapid.Check(t, func(t *rapid.T) {
		v := plantest.Vocabularies().Draw(t, "vocabulary")
		values := rapid.SliceOfNDistinct(v.PoolValues(), 1, 6, func(p whatif.PoolValues) [2]string { return [2]string{p.Namespace, p.Name} }).Draw(t, "pools")
		pools := make([]plan.Pool, len(values))
		for i, p := range values {
			pools[i] = plan.DecodePool(p.Namespace, p.Name, p.Spec)
		}
		catValues := v.CatalogValues().Draw(t, "catalog")
		st := v.State(pools, catValues, plantest.Options{}).Draw(t, "state")
		st.Observed |= state.KubernetesNodes | state.HelmRelease
		for _, p := range values {
			if st.Namespaces != nil && !slices.Contains(st.Namespaces, p.Namespace) {
				st.Namespaces = append(st.Namespaces, p.Namespace)
			}
			spec, _ := p.Spec.(map[string]any)
			switch rapid.IntRange(0, 2).Draw(t, "declaredAs") {
			case 0:
				st.KubernetesNodes = append(st.KubernetesNodes, *poolObject(p.Namespace, p.Name, spec))
			case 1:
				st.HelmReleases = append(st.HelmReleases, *poolRelease(p.Namespace, "kubernetes-nodes-"+p.Name, spec, nil))
			default:
				st.KubernetesNodes = append(st.KubernetesNodes, *poolObject(p.Namespace, p.Name, spec))
				st.HelmReleases = append(st.HelmReleases, *poolRelease(p.Namespace, "kubernetes-nodes-"+p.Name, spec, nil))
			}
		}
		snap := state.NewSnapshot(st)
		none := catalog.Compile(catalog.Values{Enabled: true, Images: []catalog.Image{}})
		rep := catalog.Prune(none, snap, plan.PoolGolden)
		idx := catalog.NewConsumerIndex(snap, plan.PoolGolden)
		live := catalog.Unmanaged(none, snap)
		for i, r := range plan.PlanAll(pools, catalog.Compile(catValues), snap) {
			if r.Outcome != plan.Planned || r.Golden == "" {
				continue
			}
			if slices.Contains(rep.SafeToDelete, r.Golden) {
				t.Fatalf("pool %s/%s plans a clone of %s, which prune reports safe to delete", r.Namespace, r.Name, r.Golden)
			}
			if !listsPool(idx.Of(r.Golden), pools[i]) {
				t.Fatalf("pool %s/%s plans a clone of %s, and is not among its consumers %v", r.Namespace, r.Name, r.Golden, idx.Of(r.Golden))
			}
			if slices.Contains(live, r.Golden) {
				checked++
			}
		}
	})
	if checked == 0 {
		t.Error("no draw planned a clone of a golden in the cluster: the property checked nothing")
	}
}

// listsPool reports whether consumers list the pool by its KubernetesNodes
// or its HelmRelease.
func listsPool(consumers []catalog.Consumer, p plan.Pool) bool {
	for _, c := range consumers {
		if c.Namespace == p.Namespace && c.Pool == naming.PoolCAPIName(p.Name) &&
			(c.Kind == state.KubernetesNodes.String() || c.Kind == state.HelmRelease.String()) {
			return true
		}
	}
	return false
}
