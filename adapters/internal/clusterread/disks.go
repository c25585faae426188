package clusterread

import (
	"context"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// DiskSource is a Source that can list, of a namespace's DataVolumes or
// PVCs, the worker disks of some pools alone: those that carry the pool
// annotation (naming.PoolAnnotation) of one of them and a golden
// annotation. A plan reads nothing else of its pool's namespace, and a
// namespace can hold thousands of disks of other pools.
type DiskSource interface {
	Source
	// ListDisks appends to into those disks of kind (DataVolume or
	// PersistentVolumeClaim) in namespace. ok is false when it cannot
	// tell a pool's disks apart (no index of the annotation): the caller
	// lists the namespace whole.
	ListDisks(ctx context.Context, kind state.Kind, namespace string, pools []string, into *state.State) (ok bool, err error)
}

// diskKinds are the kinds of a worker disk.
const diskKinds = state.DataVolume | state.PersistentVolumeClaim

// narrowed records, per namespace, the disk kinds listed for some pools
// alone.
type narrowed map[string]state.Kind

// counterparts reads by name the DataVolume of each PVC, and the PVC of
// each DataVolume, that a narrowed list brought without its namespace's
// other kind: a disk is its DataVolume and its PVC merged by name, and
// CDI need not copy a DataVolume's annotations to its PVC. An absent
// counterpart is recorded absent by the namespace's list.
func (n narrowed) counterparts(ctx context.Context, src Source, st *state.State, discovered bool) error {
	for ns, k := range n {
		dvs, pvcs := map[string]bool{}, map[string]bool{}
		for i := range st.DataVolumes {
			if d := &st.DataVolumes[i]; d.Namespace == ns {
				dvs[d.Name] = true
			}
		}
		for i := range st.PersistentVolumeClaims {
			if p := &st.PersistentVolumeClaims[i]; p.Namespace == ns {
				pvcs[p.Name] = true
			}
		}
		var calls []Call
		if k.Has(state.PersistentVolumeClaim) {
			for name := range dvs {
				if !pvcs[name] {
					calls = append(calls, Call{Verb: Get, Kind: state.PersistentVolumeClaim, Namespace: ns, Name: name})
				}
			}
		}
		if k.Has(state.DataVolume) {
			for name := range pvcs {
				if !dvs[name] {
					calls = append(calls, Call{Verb: Get, Kind: state.DataVolume, Namespace: ns, Name: name})
				}
			}
		}
		for _, c := range calls {
			err := src.Get(ctx, c.Kind, c.Namespace, c.Name, st)
			if o := classify(c, err, discovered); o != read && o != absent {
				return &ReadError{Verb: c.Verb, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Err: err}
			}
		}
	}
	return nil
}
