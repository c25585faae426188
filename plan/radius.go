package plan

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// AddBlastRadius sets BlastRadius on each planned result that warns
// GoldenUnavailable: how many pools and KubevirtMachineTemplates, in the
// whole cluster, still point at its golden, from idx (a
// catalog.ConsumerIndex of a snapshot read with catalog.ConsumersNeeds:
// every consumer of a golden, in every namespace). Needs never includes
// those reads: how many others still point at a golden decides nothing of
// a pool's disk, so a plan neither reads the consumers nor warns when they
// are unknown; a caller that reports the blast radius reads them once
// GoldenUnavailable says it is wanted. It is information, never a refusal: a radius over consumer kinds that were not
// observed says its counts are a lower bound (catalog.Radius.Unobserved).
// It changes the results it is given and nothing else; it reports whether
// it set any.
func AddBlastRadius(results []Result, idx *catalog.ConsumerIndex) bool {
	set := false
	for i := range results {
		if !WantsBlastRadius(results[i]) {
			continue
		}
		r := idx.Radius(results[i].Golden)
		results[i].BlastRadius = &r
		set = true
	}
	return set
}

// WantsBlastRadius reports whether a result warns GoldenUnavailable on a
// planned clone: its golden is gone, failed or unmanaged while the pool
// runs on it, and AddBlastRadius would count what else points at it.
func WantsBlastRadius(r Result) bool {
	if r.Outcome != Planned || r.Golden == "" {
		return false
	}
	for _, w := range r.Warnings {
		if w.Reason == guard.GoldenUnavailable {
			return true
		}
	}
	return false
}

// TemplateNeeds is what reading the pools' live KubevirtMachineTemplates
// takes (state.Snapshot.PoolTemplate): the templates of each pool's
// namespace, one list per namespace (a cluster-wide one past the adapters'
// limit). Plan never reads them: what the workers boot from today decides
// nothing of the disk a pool gets. A caller that compares the two (the
// CLI's re-image notice, a diff) reads them besides Needs.
func TemplateNeeds(pools []Pool) state.Request {
	var r state.Request
	for i := range pools {
		r.Lists = append(r.Lists, state.Ref{Kind: state.KubevirtMachineTemplate, Namespace: pools[i].Namespace})
	}
	return r.Merge(state.Request{})
}
