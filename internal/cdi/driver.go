package cdi

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Driver is the CSI driver CDI takes a PVC to be on.
type Driver struct {
	// Name is the driver, "" when the PVC has none (no class, and no CSI
	// volume): CDI then copies host-assisted.
	Name string
	// Unobserved are the kinds the answer needed and could not read.
	Unobserved state.Kind
	// Waits: the PVC's bound volume does not point back at it, and CDI's
	// clone errors and retries ("pvc does not match volume claim ref").
	Waits bool
}

// Known reports whether Name is what CDI will see.
func (d Driver) Known() bool { return d.Unobserved == 0 && !d.Waits }

// ClaimDriver is the driver of a PVC as CDI's clone planner reads it
// (controller/clone/common.go GetDriverFromVolume, GetStorageClassForClaim):
// its bound PersistentVolume's spec.csi.driver, else its class's
// provisioner; none for a PVC without a class (nil or "") or whose class
// does not exist.
func ClaimDriver(snap *state.Snapshot, pvc *corev1.PersistentVolumeClaim) Driver {
	if vn := pvc.Spec.VolumeName; vn != "" {
		if !stateindex.Of(snap).Covers(state.PersistentVolume, "", vn) {
			return Driver{Unobserved: state.PersistentVolume}
		}
		if pv := stateindex.Of(snap).PersistentVolume(vn); pv != nil && pv.Spec.ClaimRef != nil {
			ref := pv.Spec.ClaimRef
			if ref.Namespace != pvc.Namespace || ref.Name != pvc.Name {
				return Driver{Waits: true}
			}
			if pv.Spec.CSI != nil {
				return Driver{Name: pv.Spec.CSI.Driver}
			}
		}
	}
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	return ClassDriver(snap, class)
}

// ClassDriver is the driver a PVC of class gets: the class's provisioner,
// none when class is "" or does not exist.
func ClassDriver(snap *state.Snapshot, class string) Driver {
	if class == "" {
		return Driver{}
	}
	if !stateindex.Of(snap).Observed(state.StorageClass) {
		return Driver{Unobserved: state.StorageClass}
	}
	if sc := stateindex.Of(snap).StorageClass(class); sc != nil {
		return Driver{Name: sc.Provisioner}
	}
	return Driver{}
}
