package cdi

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Rendering is what CDI makes of a DataVolume's storage for one class and
// size: the PVC it renders, or why it renders none.
type Rendering struct {
	// Unobserved are the kinds the answer needed and could not read; what
	// rests on them is unknown.
	Unobserved state.Kind
	// ClassMissing: the class is not among the observed StorageClasses,
	// so the DataVolume never gets a PVC.
	ClassMissing bool
	// Unrenderable is CDI's reason the DataVolume never gets a PVC ("" when
	// it renders, or when that is unknown); UnrenderableSize says the size
	// is the cause (CDI's webhook rejects it).
	Unrenderable     string
	UnrenderableSize bool
	// Fix is the way out of Unrenderable.
	Fix string

	Class   *storagev1.StorageClass
	Profile *cdiv1.StorageProfile
	// Mode is the volume mode CDI picks; ModeKnown is false when the
	// StorageProfile was not observed.
	Mode      corev1.PersistentVolumeMode
	ModeKnown bool
	// Request is the PVC's request; RequestKnown is false when what it
	// rests on (the mode, the overhead) is unknown.
	Request      resource.Quantity
	RequestKnown bool
	// Raw is the size raised to the StorageProfile's minimum, not
	// inflated: what CDI's DataVolume controller compares a Block golden
	// with (controller/common/util.go GetEffectiveStorageResources).
	// RawKnown is false when the StorageProfile was not observed.
	Raw      resource.Quantity
	RawKnown bool
}

// Renders reports whether the DataVolume is known to get a PVC.
func (r *Rendering) Renders() bool {
	return r.Unobserved == 0 && !r.ClassMissing && r.Unrenderable == ""
}

// Render is what CDI renders for a DataVolume of the storage API on class
// with size, with neither access modes nor a volume mode of its own (which
// worker disks and goldens have not) (controller/datavolume/util.go
// renderPvcSpec, pvcFromStorage, renderPvcSpecVolumeModeAndAccessModesAndStorageClass,
// getDefaultVolumeAndAccessMode, renderPvcSpecVolumeSize):
//   - a size under 1MiB is rejected by CDI's webhook
//     (apiserver/webhooks/datavolume-validate.go validateStorageSize);
//   - without CDI's CDIConfig "config" nothing renders ("error getting
//     CDIConfig");
//   - the class must exist; its StorageProfile must exist and its
//     status.claimPropertySets[0] must carry access modes: CDI never reads
//     the profile's spec, nor the sets after the first;
//   - the volume mode is that set's (nil is Filesystem), and the request
//     is RenderedRequest of the size with the class's overhead and
//     the profile's minimumSupportedPvcSize.
func Render(snap *state.Snapshot, class string, size resource.Quantity) Rendering {
	r := Rendering{Raw: size.DeepCopy()}
	if size.Value() < MinimumDiskSize {
		r.Unrenderable, r.UnrenderableSize = fmt.Sprintf("CDI's webhook rejects a DataVolume under 1MiB (%s)", size.String()), true
		if size.CmpInt64(MinimumDiskSize) > 0 {
			// validateStorageSize reads pvcSize.Value(), an int64 of
			// bytes, which a size past it does not fit: it reads 0.
			r.Unrenderable = fmt.Sprintf("CDI's webhook reads the size as an int64 of bytes, which %s does not fit (it reads %d), and rejects a DataVolume under 1MiB", size.String(), size.Value())
		}
		return r
	}
	if !stateindex.Of(snap).Observed(state.StorageClass) {
		r.Unobserved |= state.StorageClass
	} else if r.Class = stateindex.Of(snap).StorageClass(class); r.Class == nil {
		r.ClassMissing = true
		return r
	}
	if !stateindex.Of(snap).Observed(state.StorageProfile) {
		r.Unobserved |= state.StorageProfile
	} else {
		r.Profile = stateindex.Of(snap).StorageProfile(class)
		switch {
		case r.Profile == nil:
			r.Unrenderable = fmt.Sprintf("class %q has no StorageProfile (CDI: \"cannot get StorageProfile\")", class)
			r.Fix = "CDI creates a StorageProfile for every class it runs beside, so check that CDI runs and has seen the class, or pick a class CDI knows"
			return r
		case len(r.Profile.Status.ClaimPropertySets) == 0 || len(r.Profile.Status.ClaimPropertySets[0].AccessModes) == 0:
			r.Unrenderable = fmt.Sprintf("StorageProfile %s has no claim property set with access modes in its status (CDI: \"no accessMode specified in StorageProfile %s\")", r.Profile.Name, r.Profile.Name)
			r.Fix = "CDI knows no access modes for the class's provisioner: an admin sets the StorageProfile's spec.claimPropertySets (access modes and volume mode), or pick a class CDI knows"
			return r
		}
		r.ModeKnown = true
		r.Mode = corev1.PersistentVolumeFilesystem
		if m := r.Profile.Status.ClaimPropertySets[0].VolumeMode; m != nil && *m == corev1.PersistentVolumeBlock {
			r.Mode = corev1.PersistentVolumeBlock
		}
	}
	overheadKnown := true
	if !stateindex.Of(snap).Observed(state.CDIConfig) {
		r.Unobserved |= state.CDIConfig
		overheadKnown = false
	} else if stateindex.Of(snap).CDIConfig() == nil {
		r.Unrenderable = fmt.Sprintf("CDI has no CDIConfig %q (CDI: \"error getting CDIConfig\")", stateindex.CDIConfigName)
		r.Fix = "CDI's installation is incomplete: its operator re-creates CDIConfig config"
		return r
	}
	min := MinimumRequest(r.Profile)
	if min != nil && r.Raw.Cmp(*min) < 0 {
		r.Raw = min.DeepCopy()
	}
	r.RawKnown = r.ModeKnown
	if r.ModeKnown && (overheadKnown || r.Mode == corev1.PersistentVolumeBlock) {
		r.Request = RenderedRequest(size, r.Mode, FilesystemOverhead(stateindex.Of(snap).CDIConfig(), class), min)
		r.RequestKnown = true
	}
	return r
}
