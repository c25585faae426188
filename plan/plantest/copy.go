package plantest

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// CopyPool returns a deep copy of p, sharing nothing with it, so that a
// test can check that planning left p unchanged.
func CopyPool(p plan.Pool) plan.Pool {
	if img := p.Spec.OSImage; img != nil {
		cp := &plan.OSImage{}
		if img.Builtin != nil {
			b := *img.Builtin
			cp.Builtin = &b
		}
		if img.Factory != nil {
			f := *img.Factory
			cp.Factory = &f
		}
		p.Spec.OSImage = cp
	}
	return p
}

// CopyValues returns a deep copy of catalog values.
func CopyValues(v catalog.Values) catalog.Values {
	v.Images = copyEach(v.Images, func(i *catalog.Image) *catalog.Image { return i })
	return v
}

// CopyState returns a deep copy of s (nil for nil). Nil and empty slices
// stay what they were, so that reflect.DeepEqual compares a state with its
// copy.
func CopyState(s *state.State) *state.State {
	if s == nil {
		return nil
	}
	return &state.State{
		Observed:               s.Observed,
		Namespaces:             copyEach(s.Namespaces, func(n *string) *string { return n }),
		Objects:                copyEach(s.Objects, func(r *state.Ref) *state.Ref { return r }),
		StorageClasses:         copyEach(s.StorageClasses, (*storagev1.StorageClass).DeepCopy),
		PersistentVolumeClaims: copyEach(s.PersistentVolumeClaims, (*corev1.PersistentVolumeClaim).DeepCopy),
		DataVolumes:            copyEach(s.DataVolumes, (*cdiv1.DataVolume).DeepCopy),
		StorageProfiles:        copyEach(s.StorageProfiles, (*cdiv1.StorageProfile).DeepCopy),
		CDIs:                   copyEach(s.CDIs, (*cdiv1.CDI).DeepCopy),
		CSIDrivers:             copyEach(s.CSIDrivers, (*storagev1.CSIDriver).DeepCopy),
		VolumeSnapshotClasses:  copyEach(s.VolumeSnapshotClasses, (*snapshotv1.VolumeSnapshotClass).DeepCopy),
		CDIConfigs:             copyEach(s.CDIConfigs, (*cdiv1.CDIConfig).DeepCopy),
		PersistentVolumes:      copyEach(s.PersistentVolumes, (*corev1.PersistentVolume).DeepCopy),
	}
}

func copyEach[T any](in []T, deepCopy func(*T) *T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i := range in {
		out[i] = *deepCopy(&in[i])
	}
	return out
}
