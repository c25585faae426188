package plan

import (
	"github.com/cozystack/kubernetes-worker-image/internal/diskscope"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// clusterKinds are the cluster-scoped kinds a clone plan reads whole.
var clusterKinds = []state.Kind{state.StorageClass, state.StorageProfile, state.CDI, state.CSIDriver,
	state.VolumeSnapshotClass, state.CDIConfig}

// httpKinds are what the HTTP path reads, to warn of a disk CDI cannot
// render: the classes, their StorageProfiles and CDI's config.
var httpKinds = []state.Kind{state.StorageClass, state.StorageProfile, state.CDIConfig}

// Needs says what Plan reads of the cluster for a pool, so an adapter reads
// exactly that: for the HTTP path, the cluster-scoped kinds that say
// whether CDI can render the disk; for a clone, the golden's DataVolume and
// PVC by name and the volume its PVC is bound to, the pool namespace's
// DataVolumes and PVCs (its disks), and the cluster-scoped kinds. Of the
// namespace's DataVolumes and PVCs the plan reads only the pool's own
// disks, those that carry its pool annotation and a golden annotation: a
// reader with an index of that annotation (controllerruntime's, over a
// cache) reads those alone, any other the namespace whole. A clone
// pool whose flavor is invalid needs nothing: it is refused without the
// cluster.
func Needs(pool Pool) state.Request {
	img := pool.Spec.OSImage
	if img == nil || img.Builtin == nil || img.Factory != nil {
		var r state.Request
		if img == nil || img.Builtin == nil {
			for _, k := range httpKinds {
				r.Lists = append(r.Lists, state.Ref{Kind: k})
			}
		}
		return r.Merge(state.Request{})
	}
	name := pool.Spec.clonedGolden()
	if name == "" {
		return state.Request{}
	}
	r := state.Request{
		Gets: []state.Ref{
			{Kind: state.DataVolume, Namespace: naming.GoldenNamespace, Name: name},
			{Kind: state.PersistentVolumeClaim, Namespace: naming.GoldenNamespace, Name: name},
			// The golden PVC's bound volume: its CSI driver is the one CDI
			// clones with.
			{Kind: state.PersistentVolume, Namespace: naming.GoldenNamespace, Name: name},
		},
		Lists: []state.Ref{
			{Kind: state.DataVolume, Namespace: pool.Namespace},
			{Kind: state.PersistentVolumeClaim, Namespace: pool.Namespace},
		},
	}
	for _, k := range clusterKinds {
		r.Lists = append(r.Lists, state.Ref{Kind: k})
	}
	r = r.Merge(state.Request{})
	if pool.Namespace == naming.GoldenNamespace {
		// The namespace's list also answers the golden's gets: it is read
		// whole.
		return r
	}
	// Of its namespace the plan reads only the pool's disks: those that
	// prove it has cloned its golden, and freeze its class.
	return diskscope.Narrow(r, pool.Namespace, naming.PoolCAPIName(pool.Name)).(state.Request)
}

// NeedsAll merges the needs of many pools: the golden gets and the
// namespaces' lists they share are read once.
func NeedsAll(pools []Pool) state.Request {
	var r state.Request
	for i := range pools {
		n := Needs(pools[i])
		r.Gets = append(r.Gets, n.Gets...)
		r.Lists = append(r.Lists, n.Lists...)
	}
	return r.Merge(state.Request{})
}
