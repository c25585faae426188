package kinds

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// AdmissionReads are the kinds an admission reads of the cluster: those a pool
// that clones needs (plan.Needs) and those a catalog render needs
// (catalog.RenderNeeds).
func AdmissionReads() state.Kind {
	pool := plan.DecodePool("tenant", "cluster-pool", map[string]any{"cluster": "cluster", "osImage": map[string]any{"builtin": map[string]any{}}})
	need := plan.Needs(pool).Merge(catalog.RenderNeeds())
	var k state.Kind
	for _, r := range need.Gets {
		k |= r.Kind
	}
	for _, r := range need.Lists {
		k |= r.Kind
	}
	return k
}
