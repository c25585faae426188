package cdi

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// AvailableVolume is the PersistentVolume CDI renders a DataVolume's PVC
// from when the DataVolume names a class no StorageClass has
// (controller/datavolume/util.go renderPvcSpecVolumeModeAndAccessModesAndStorageClass,
// renderPvcSpecFromAvailablePv): the first Available volume of that class
// (controller/datavolume/controller-base.go
// extractAvailablePersistentVolumeStorageClassName) that satisfies a claim
// of size with neither access nor volume mode (CheckVolumeSatisfyClaim: not
// being deleted, a capacity of at least size, volume mode Filesystem); CDI
// takes its volume mode and access modes, and a volume without access
// modes renders nothing ("no StorageClass found"). It returns "" when no
// volume serves, and known false when PersistentVolumes were not observed
// in full (adapters read only the golden's volume, by name).
func AvailableVolume(snap *state.Snapshot, class string, size resource.Quantity) (name string, known bool) {
	if class == "" || !snap.Observed(state.PersistentVolume) {
		return "", false
	}
	for pv := range snap.PersistentVolumes() {
		if pv.Status.Phase != corev1.VolumeAvailable || pv.Spec.StorageClassName != class || pv.DeletionTimestamp != nil {
			continue
		}
		capacity := pv.Spec.Capacity[corev1.ResourceStorage]
		if capacity.Value() < size.Value() {
			continue
		}
		if m := pv.Spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeFilesystem {
			continue
		}
		if len(pv.Spec.AccessModes) == 0 {
			return "", true // the first that satisfies is taken: without access modes, nothing renders
		}
		return pv.Name, true
	}
	return "", true
}
