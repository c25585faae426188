package clone

import (
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// source is the PVC dv clones: spec.source.pvc, or the PVC of the
// DataSource its spec.sourceRef names, resolved as CDI resolves it. It
// reports false, with a refusal or a warning, when there is none to judge.
func source(dv *cdiv1.DataVolume, snap *state.Snapshot, c *findings.Collector, unverified *state.Kind) (stateindex.Key, bool) {
	s, ref := dv.Spec.Source, dv.Spec.SourceRef
	switch {
	case ref != nil && s != nil:
		// CDI v1.64.0 pkg/apiserver/webhooks/datavolume-validate.go:
		// validateDataVolumeSpec.
		c.Refuse(guard.InvalidValue, pathSource, "source+sourceRef",
			"the DataVolume sets both spec.source and spec.sourceRef, which CDI's webhook rejects (\"Data volume should have either Source or SourceRef\"); keep one")
		return stateindex.Key{}, false
	case ref != nil:
		return sourceRef(dv, snap, c, unverified)
	case s == nil || s.PVC == nil:
		c.Refuse(guard.InvalidValue, pathSource, nil,
			"the DataVolume does not clone a PVC: the plan judges a DataVolume whose spec.source.pvc, or whose spec.sourceRef's DataSource, names the PVC it clones")
		return stateindex.Key{}, false
	case s.PVC.Name == "":
		c.Refuse(guard.InvalidValue, pathSourcePVC.Child("name"), "",
			"spec.source.pvc names no PVC; set its name (and its namespace, else the DataVolume's)")
		return stateindex.Key{}, false
	}
	ns := s.PVC.Namespace
	if ns == "" {
		ns = dv.Namespace
	}
	return stateindex.Key{Namespace: ns, Name: s.PVC.Name}, true
}

// sourceRef resolves a DataSource as CDI does: in the sourceRef's
// namespace, else the DataVolume's; a DataSource whose source is another
// DataSource, of the same namespace and one level deep only, stands for
// that one (CDI v1.64.0 pkg/controller/datavolume/controller-base.go:
// getSourceRefOp; pkg/controller/common/util.go: ResolveDataSourceChain;
// pkg/controller/datavolume/clone-controller-base.go:
// populateSourceIfSourceRef).
func sourceRef(dv *cdiv1.DataVolume, snap *state.Snapshot, c *findings.Collector, unverified *state.Kind) (stateindex.Key, bool) {
	ref := dv.Spec.SourceRef
	switch {
	case ref.Kind != cdiv1.DataVolumeDataSource:
		// CDI v1.64.0 pkg/apiserver/webhooks/datavolume-validate.go:
		// validateSourceRef.
		c.Refuse(guard.InvalidValue, pathSourceRef.Child("kind"), ref.Kind,
			"CDI's webhook rejects a sourceRef of kind %q (\"currently only DataSource is supported\"); set kind: DataSource", ref.Kind)
		return stateindex.Key{}, false
	case ref.Name == "":
		c.Refuse(guard.InvalidValue, pathSourceRef.Child("name"), "",
			"CDI's webhook rejects a sourceRef without a name (\"Missing sourceRef name\"); name the DataSource")
		return stateindex.Key{}, false
	}
	ns := dv.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = *ref.Namespace
	}
	ds, ok := dataSource(snap, c, unverified, ns, ref.Name)
	if !ok {
		return stateindex.Key{}, false
	}
	if next := ds.Spec.Source.DataSource; next != nil {
		nextNS := ds.Namespace
		if next.Namespace != "" {
			nextNS = next.Namespace
		}
		switch {
		case nextNS != ds.Namespace:
			c.Refuse(guard.InvalidValue, pathSourceRef, ds.Namespace+"/"+ds.Name,
				"DataSource %s/%s points at DataSource %s/%s of another namespace, which CDI refuses to follow (\"cross-namespace\"), so the DataVolume never clones; point it at a PVC", ds.Namespace, ds.Name, nextNS, next.Name)
			return stateindex.Key{}, false
		case next.Name == ds.Name:
			c.Refuse(guard.InvalidValue, pathSourceRef, ds.Namespace+"/"+ds.Name,
				"DataSource %s/%s points at itself, which CDI refuses to follow (\"self reference\"), so the DataVolume never clones; point it at a PVC", ds.Namespace, ds.Name)
			return stateindex.Key{}, false
		}
		if ds, ok = dataSource(snap, c, unverified, nextNS, next.Name); !ok {
			return stateindex.Key{}, false
		}
		if ds.Spec.Source.DataSource != nil {
			c.Refuse(guard.InvalidValue, pathSourceRef, ds.Namespace+"/"+ds.Name,
				"DataSource %s/%s points at another DataSource in turn, deeper than CDI follows (\"max depth reached\"), so the DataVolume never clones; point it at a PVC", ds.Namespace, ds.Name)
			return stateindex.Key{}, false
		}
	}
	switch pvc := ds.Spec.Source.PVC; {
	case pvc != nil && pvc.Name != "":
		pns := pvc.Namespace
		if pns == "" {
			pns = ds.Namespace
		}
		return stateindex.Key{Namespace: pns, Name: pvc.Name}, true
	case ds.Spec.Source.Snapshot != nil:
		c.Refuse(guard.InvalidValue, pathSourceRef, ds.Namespace+"/"+ds.Name,
			"DataSource %s/%s names a VolumeSnapshot, not a PVC: the plan judges clones of a PVC", ds.Namespace, ds.Name)
	default:
		// CDI errors and retries until the DataSource names a source
		// ("Empty source field ... DataSource may not be ready yet").
		c.Warn(guard.GoldenPending, pathSourceRef,
			"DataSource %s/%s names no source yet; CDI holds the DataVolume until it does", ds.Namespace, ds.Name)
	}
	return stateindex.Key{}, false
}

// dataSource looks a DataSource up; absent, CDI does nothing with the
// DataVolume until it exists.
func dataSource(snap *state.Snapshot, c *findings.Collector, unverified *state.Kind, ns, name string) (*cdiv1.DataSource, bool) {
	if !stateindex.Of(snap).Covers(state.DataSource, ns, name) {
		*unverified |= state.DataSource
		return nil, false
	}
	ds := stateindex.Of(snap).DataSource(ns, name)
	if ds == nil {
		c.Warn(guard.GoldenPending, pathSourceRef,
			"DataSource %s/%s does not exist; CDI does nothing with the DataVolume until it does (\"Unable to get DataSource\")", ns, name)
		return nil, false
	}
	return ds, true
}
