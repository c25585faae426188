package plantest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// breakages applies one to three of the things a broken cluster, or a
// hand-written state file, shows.
func (d *stateDraw) breakages() {
	t, st := d.t, d.st
	pvc := func() *corev1.PersistentVolumeClaim {
		if len(st.PersistentVolumeClaims) == 0 {
			return nil
		}
		return &st.PersistentVolumeClaims[rapid.IntRange(0, len(st.PersistentVolumeClaims)-1).Draw(t, "brokenPVC")]
	}
	dv := func() *cdiv1.DataVolume {
		if len(st.DataVolumes) == 0 {
			return nil
		}
		return &st.DataVolumes[rapid.IntRange(0, len(st.DataVolumes)-1).Draw(t, "brokenDataVolume")]
	}
	for range rapid.IntRange(1, 3).Draw(t, "breakages") {
		switch rapid.IntRange(0, 11).Draw(t, "breakage") {
		case 0: // a bound PVC without a class
			if p := pvc(); p != nil {
				p.Spec.StorageClassName = nil
			}
		case 1: // a PVC on another class than its DataVolume's
			if p := pvc(); p != nil {
				p.Spec.StorageClassName = ptr.To(rapid.SampledFrom(d.v.Classes).Draw(t, "brokenClass"))
			}
		case 2: // a pending PVC whose DataVolume succeeded
			if p := pvc(); p != nil {
				p.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
			}
		case 3: // two PVCs of one name
			if p := pvc(); p != nil {
				dup := p.DeepCopy()
				dup.Spec.StorageClassName = ptr.To(rapid.SampledFrom(d.v.Classes).Draw(t, "duplicateClass"))
				st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, *dup)
			}
		case 4: // two DataVolumes of one name
			if v := dv(); v != nil {
				dup := v.DeepCopy()
				dup.Status.Phase = rapid.SampledFrom(phases).Draw(t, "duplicatePhase")
				st.DataVolumes = append(st.DataVolumes, *dup)
			}
		case 5: // several CDI resources
			st.CDIs = append(st.CDIs, cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi-" + rapid.StringMatching(`[a-z]{1,3}`).Draw(t, "cdiName")},
				Spec: cdiv1.CDISpec{CloneStrategyOverride: strategy(t, "secondOverride", 1)}})
		case 6: // a capacity below the request, or none
			if p := pvc(); p != nil {
				p.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(rapid.SampledFrom([]string{"0", "1Gi"}).Draw(t, "brokenCapacity"))}
			}
		case 7: // a disk annotated with a name that is no golden's
			if p := pvc(); p != nil && p.Annotations[naming.GoldenAnnotation] != "" {
				p.Annotations[naming.GoldenAnnotation] = rapid.SampledFrom([]string{"talos-worker-BAD", "", "talos-worker-abc-v1"}).Draw(t, "brokenGolden")
			}
		case 8: // a StorageProfile of no class
			st.StorageProfiles = append(st.StorageProfiles, cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: "ghost"},
				Status: cdiv1.StorageProfileStatus{CloneStrategy: ptr.To(cdiv1.CloneStrategyHostAssisted)}})
		case 9: // a DataVolume without storage or pvc spec
			if v := dv(); v != nil {
				v.Spec.Storage, v.Spec.PVC = nil, nil
			}
		case 10: // a CDIConfig under another name than "config"
			for i := range st.CDIConfigs {
				st.CDIConfigs[i].Name = "config-old"
			}
		case 11: // a PVC bound to a volume that is bound to no claim
			if p := pvc(); p != nil {
				p.Spec.VolumeName = "pv-unclaimed"
				st.PersistentVolumes = append(st.PersistentVolumes, corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-unclaimed"},
					Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: foreignDriver}}}})
			}
		}
	}
}
