package invariants_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestNeedsIsEnough (invariant 9): an adapter that reads exactly what
// plan.NeedsAll asks for (the kinds it lists, in the namespaces it lists
// them, and the objects it gets by name) plans every pool as if it had read
// the whole cluster: Plan reads nothing Needs did not ask for.
func TestNeedsIsEnough(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := wellFormedScenario(t)
		cat := catalog.Compile(s.Catalog)
		full := plan.PlanAll(s.Pools, cat, state.NewSnapshot(s.State))
		read := readAsAsked(s.State, plan.NeedsAll(s.Pools))
		asked := plan.PlanAll(s.Pools, cat, state.NewSnapshot(read))
		for i := range full {
			if d := sameResult(full[i], asked[i]); d != "" {
				t.Fatalf("pool %d plans differently from what Needs asked for (%s): %s", i, describeObserved(read), d)
			}
		}
	})
}

// readAsAsked is what an adapter reads of a fully observed cluster for a
// request: the listed kinds (namespaced ones in the listed namespaces
// only) and the objects got by name, found or not. A get of a
// PersistentVolume names a claim: once the claim is read, the volume it
// names (if any) is read by name (state.Request).
func readAsAsked(st *state.State, r state.Request) *state.State {
	read := &state.State{}
	var volumeClaims []state.Ref
	for _, g := range r.Gets {
		if g.Kind == state.PersistentVolume {
			volumeClaims = append(volumeClaims, g)
			continue
		}
		read.Objects = append(read.Objects, g)
	}
	namespaces := map[string]bool{}
	for _, l := range r.Lists {
		read.Observed |= l.Kind
		if l.Namespace != "" {
			namespaces[l.Namespace] = true
		}
	}
	read.Namespaces = []string{}
	for ns := range namespaces {
		read.Namespaces = append(read.Namespaces, ns)
	}
	snap := state.NewSnapshot(read)
	all := plantest.CopyState(st)
	if stateindex.Of(snap).Observed(state.StorageClass) {
		read.StorageClasses = all.StorageClasses
	}
	if stateindex.Of(snap).Observed(state.StorageProfile) {
		read.StorageProfiles = all.StorageProfiles
	}
	if stateindex.Of(snap).Observed(state.CDI) {
		read.CDIs = all.CDIs
	}
	if stateindex.Of(snap).Observed(state.CSIDriver) {
		read.CSIDrivers = all.CSIDrivers
	}
	if stateindex.Of(snap).Observed(state.VolumeSnapshotClass) {
		read.VolumeSnapshotClasses = all.VolumeSnapshotClasses
	}
	if stateindex.Of(snap).Observed(state.CDIConfig) {
		read.CDIConfigs = all.CDIConfigs
	}
	for _, p := range all.PersistentVolumeClaims {
		if stateindex.Of(snap).Covers(state.PersistentVolumeClaim, p.Namespace, p.Name) {
			read.PersistentVolumeClaims = append(read.PersistentVolumeClaims, p)
		}
	}
	for _, d := range all.DataVolumes {
		if stateindex.Of(snap).Covers(state.DataVolume, d.Namespace, d.Name) {
			read.DataVolumes = append(read.DataVolumes, d)
		}
	}
	for _, c := range volumeClaims {
		if !stateindex.Of(snap).Covers(state.PersistentVolumeClaim, c.Namespace, c.Name) {
			continue // the claim was not read: its volume is unknown
		}
		name := ""
		for _, p := range read.PersistentVolumeClaims {
			if p.Namespace == c.Namespace && p.Name == c.Name {
				name = p.Spec.VolumeName
			}
		}
		if name == "" {
			continue
		}
		read.Objects = append(read.Objects, state.Ref{Kind: state.PersistentVolume, Name: name})
		for _, v := range all.PersistentVolumes {
			if v.Name == name {
				read.PersistentVolumes = append(read.PersistentVolumes, v)
			}
		}
	}
	return read
}
