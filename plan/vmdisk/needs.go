package vmdisk

import (
	"strings"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// cloneClusterKinds are the cluster-scoped kinds the clone guards read
// whole: the classes, their StorageProfiles, CDI and its config, the CSI
// drivers and the snapshot classes.
var cloneClusterKinds = []state.Kind{state.StorageClass, state.StorageProfile, state.CDI, state.CDIConfig,
	state.CSIDriver, state.VolumeSnapshotClass}

// Needs says what Plan reads of the cluster for a VMDisk, so an adapter
// reads exactly that: the DataVolume the chart creates (vm-disk-<name>: if
// it exists, the chart keeps it); for a clone, the source's DataVolume and
// PVC by name and the volume its PVC is bound to, and the cluster-scoped
// kinds the clone guards read. An HTTP import, an upload and a blank disk
// read only their own DataVolume.
func Needs(d VMDisk) state.Request {
	p := d.paths
	if d.root == nil {
		p = fieldsOf(&d)
	}
	r := state.Request{Gets: []state.Ref{{Kind: state.DataVolume, Namespace: d.Namespace, Name: p.release}}}
	if p.clonesRef != "" {
		ns, name, _ := strings.Cut(p.clonesRef, "/")
		r.Gets = append(r.Gets,
			state.Ref{Kind: state.DataVolume, Namespace: ns, Name: name},
			state.Ref{Kind: state.PersistentVolumeClaim, Namespace: ns, Name: name},
			// The source PVC's bound volume: its CSI driver is the one
			// CDI clones with.
			state.Ref{Kind: state.PersistentVolume, Namespace: ns, Name: name})
		for _, k := range cloneClusterKinds {
			r.Lists = append(r.Lists, state.Ref{Kind: k})
		}
	}
	return r.Merge(state.Request{})
}

// NeedsAll merges the needs of many VMDisks: what they share is read once.
func NeedsAll(disks []VMDisk) state.Request {
	var r state.Request
	for i := range disks {
		n := Needs(disks[i])
		r.Gets = append(r.Gets, n.Gets...)
		r.Lists = append(r.Lists, n.Lists...)
	}
	return r.Merge(state.Request{})
}
