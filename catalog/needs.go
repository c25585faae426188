package catalog

import (
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// What each catalog operation reads of a cluster, so that an adapter (a
// state reader of package adapters/clientgo or adapters/controllerruntime)
// reads exactly that and the operation sees everything it needs.

// RenderNeeds is what Render and ReadBack read: the goldens in cozy-public
// (their DataVolumes and PVCs), the StorageClasses an empty class resolves
// against, and what says whether CDI can render a golden's PVC (the
// StorageProfiles and CDI's CDIConfig).
func RenderNeeds() state.Request {
	return state.Request{Lists: []state.Ref{
		{Kind: state.DataVolume, Namespace: naming.GoldenNamespace},
		{Kind: state.PersistentVolumeClaim, Namespace: naming.GoldenNamespace},
		{Kind: state.StorageClass},
		{Kind: state.StorageProfile},
		{Kind: state.CDIConfig},
	}}.Merge(state.Request{})
}

// ConsumersNeeds is what Consumers and a ConsumerIndex read: every kind
// that may clone a golden (state.ConsumerKinds), in every namespace, one
// list each.
func ConsumersNeeds() state.Request {
	var r state.Request
	for _, k := range state.ConsumerKinds.Each() {
		r.Lists = append(r.Lists, state.Ref{Kind: k})
	}
	return r.Merge(state.Request{})
}

// PruneNeeds is what Prune reads: the goldens and everything that may
// clone one, in every namespace.
func PruneNeeds() state.Request { return RenderNeeds().Merge(ConsumersNeeds()) }
