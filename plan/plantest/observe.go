package plantest

import (
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// observe draws what was observed: everything, some kinds, nothing, or the
// namespaced kinds in some namespaces with the goldens (and their PVCs'
// volumes) read by name. In a consistent state what was not observed is not
// in it, as an adapter that could not read a kind has none of its objects.
func (d *stateDraw) observe(pools []plan.Pool) {
	t, st := d.t, d.st
	st.Observed = state.AllKinds
	if !d.opts.FullyObserved {
		switch pick(t, "observed", 5, 2, 1, 2) {
		case 1:
			st.Observed = 0
			for _, k := range state.AllKinds.Each() {
				if !chance(t, "unknown"+k.String(), 3) {
					st.Observed |= k
				}
			}
		case 2:
			st.Observed = 0
		case 3:
			d.scope(pools)
		}
	}
	if d.opts.Inconsistent && chance(t, "keepUnobserved", 2) {
		return
	}
	snap := state.NewSnapshot(st)
	if !stateindex.Of(snap).Observed(state.StorageClass) {
		st.StorageClasses = nil
	}
	if !stateindex.Of(snap).Observed(state.StorageProfile) {
		st.StorageProfiles = nil
	}
	if !stateindex.Of(snap).Observed(state.CDI) {
		st.CDIs = nil
	}
	if !stateindex.Of(snap).Observed(state.CSIDriver) {
		st.CSIDrivers = nil
	}
	if !stateindex.Of(snap).Observed(state.VolumeSnapshotClass) {
		st.VolumeSnapshotClasses = nil
	}
	if !stateindex.Of(snap).Observed(state.CDIConfig) {
		st.CDIConfigs = nil
	}
	pvs := st.PersistentVolumes[:0]
	for _, v := range st.PersistentVolumes {
		if stateindex.Of(snap).Covers(state.PersistentVolume, "", v.Name) {
			pvs = append(pvs, v)
		}
	}
	st.PersistentVolumes = pvs
	pvcs := st.PersistentVolumeClaims[:0]
	for _, p := range st.PersistentVolumeClaims {
		if stateindex.Of(snap).Covers(state.PersistentVolumeClaim, p.Namespace, p.Name) {
			pvcs = append(pvcs, p)
		}
	}
	st.PersistentVolumeClaims = pvcs
	dvs := st.DataVolumes[:0]
	for _, dv := range st.DataVolumes {
		if stateindex.Of(snap).Covers(state.DataVolume, dv.Namespace, dv.Name) {
			dvs = append(dvs, dv)
		}
	}
	st.DataVolumes = dvs
}

// scope observes the namespaced kinds in some namespaces only and, as the
// client-go adapter does for a pool, reads its golden by name, and the
// volume its PVC is bound to (the adapter reads it once it has read the
// claim).
func (d *stateDraw) scope(pools []plan.Pool) {
	t, st := d.t, d.st
	all := append([]string{naming.GoldenNamespace}, d.v.Namespaces...)
	st.Namespaces = rapid.SliceOfNDistinct(rapid.SampledFrom(all), 0, len(all), rapid.ID[string]).Draw(t, "namespaces")
	if st.Namespaces == nil {
		st.Namespaces = []string{}
	}
	// The adapter reads volumes by name, each once its claim is read.
	st.Observed &^= state.PersistentVolume
	for _, p := range pools {
		f, ok := Flavor(p)
		if !ok || !chance(t, "goldenReadByName", 2) {
			continue
		}
		name := goldenName(f)
		st.Objects = append(st.Objects,
			state.Ref{Kind: state.DataVolume, Namespace: naming.GoldenNamespace, Name: name},
			state.Ref{Kind: state.PersistentVolumeClaim, Namespace: naming.GoldenNamespace, Name: name})
		for _, c := range st.PersistentVolumeClaims {
			if c.Namespace == naming.GoldenNamespace && c.Name == name && c.Spec.VolumeName != "" {
				st.Objects = append(st.Objects, state.Ref{Kind: state.PersistentVolume, Name: c.Spec.VolumeName})
			}
		}
	}
}
