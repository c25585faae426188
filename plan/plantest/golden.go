package plantest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// phases are every phase a CDI DataVolume reports.
var phases = []cdiv1.DataVolumePhase{
	cdiv1.Succeeded, cdiv1.PhaseUnset, cdiv1.Pending, cdiv1.PVCBound, cdiv1.ImportScheduled, cdiv1.ImportInProgress,
	cdiv1.CloneScheduled, cdiv1.CloneInProgress, cdiv1.SnapshotForSmartCloneInProgress, cdiv1.CloneFromSnapshotSourceInProgress,
	cdiv1.SmartClonePVCInProgress, cdiv1.CSICloneInProgress, cdiv1.ExpansionInProgress, cdiv1.NamespaceTransferInProgress,
	cdiv1.UploadScheduled, cdiv1.UploadReady, cdiv1.WaitForFirstConsumer, cdiv1.PendingPopulation, cdiv1.Failed,
	cdiv1.Unknown, cdiv1.Paused, cdiv1.PrepClaimInProgress, cdiv1.RebindInProgress,
}

// golden draws the golden of a flavor in cozy-public: absent, its
// DataVolume and PVC, the DataVolume alone or the PVC alone (CDI
// garbage-collected the completed DataVolume). Its spec is its catalog
// entry's, or, one time in four, the entry was edited since.
func (d *stateDraw) golden(f catalog.Flavor, cat *catalog.Catalog) {
	t := d.t
	name := goldenName(f)
	form := pick(t, "goldenForm", 5, 2, 2, 1)
	if form == 1 {
		return
	}
	hasDV, hasPVC := form != 2, form != 3

	url, size, class := naming.ImageURL(chartdefaults.ImageFactoryURL, f.SchematicID, f.Version), 6*gi, chartdefaults.StorageClass
	if e, ok := cat.Lookup(f); ok && len(e.Refusals()) == 0 {
		url, size, class = e.URL, e.Size.Value(), e.StorageClass
	}
	if chance(t, "goldenEdited", 5) {
		switch pick(t, "goldenEdit", 1, 1, 1) {
		case 0:
			url = naming.ImageURL(factoryURL().Draw(t, "goldenFactory"), f.SchematicID, f.Version)
		case 1:
			size = sizeBytes().Draw(t, "goldenSize")
		case 2:
			class = rapid.SampledFrom(append([]string{""}, d.v.Classes...)).Draw(t, "goldenClass")
		}
	}
	request := resource.MustParse(spelling(size).Draw(t, "goldenStorage"))
	meta := goldenMeta(name, f)

	phase := cdiv1.Succeeded
	var dv *cdiv1.DataVolume
	if hasDV {
		dv = &cdiv1.DataVolume{ObjectMeta: *meta.DeepCopy()}
		dv.Spec = cdiv1.DataVolumeSpec{
			ContentType: cdiv1.DataVolumeKubeVirt,
			Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}},
			Storage: &cdiv1.StorageSpec{
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: request}},
			},
		}
		if class != "" {
			dv.Spec.Storage.StorageClassName = ptr.To(class)
		}
		switch pick(t, "goldenPhaseSucceeded", 12, 4, 1) {
		case 1:
			phase = rapid.SampledFrom(phases).Draw(t, "goldenPhase")
		case 2:
			// Failed is the one phase that refuses: drawn on its own too,
			// so that draws reach it as often as the stalled imports.
			phase = cdiv1.Failed
		}
		dv.Status = importStatus(t, phase)
		d.st.DataVolumes = append(d.st.DataVolumes, *dv)
	}
	bound := class
	if bound == "" {
		bound = d.defaultClass()
	}
	d.goldenClass[name] = bound
	if !hasPVC {
		return
	}
	p := corev1.PersistentVolumeClaim{ObjectMeta: *meta.DeepCopy()}
	p.Annotations[contentTypeAnnotation] = string(cdiv1.DataVolumeKubeVirt)
	if chance(t, "goldenPVCImportEndpoint", 2) {
		p.Annotations[naming.ImportEndpointAnnotation] = url
	}
	if !hasDV && d.fault("goldenMadeByHand", 6) {
		// A PVC made by hand on a volume of no class (storageClassName
		// ""), as an admin restores a golden from a backup.
		d.goldenClass[name] = ""
		p.Spec.StorageClassName = ptr.To("")
		p.Spec.VolumeMode = volumeMode(t, "goldenVolumeMode")
		p.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: request}
		bindPVC(t, &p, "goldenCapacity")
		d.goldenVolume(&p, "")
		d.st.PersistentVolumeClaims = append(d.st.PersistentVolumeClaims, p)
		return
	}
	p.Spec.StorageClassName = ptr.To(bound)
	p.Spec.VolumeMode = d.profileVolumeMode(bound)
	if p.Spec.VolumeMode == nil || d.fault("goldenVolumeModeDrawn", 4) {
		// No profile to render from, or the profile changed since.
		p.Spec.VolumeMode = volumeMode(t, "goldenVolumeMode")
	}
	p.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: d.renderedRequest(request, bound, p.Spec.VolumeMode)}
	if phase == cdiv1.Succeeded || !hasDV || chance(t, "goldenPVCBoundEarly", 2) {
		bindPVC(t, &p, "goldenCapacity")
		d.goldenVolume(&p, bound)
	} else {
		p.Status.Phase = corev1.ClaimPending
	}
	d.st.PersistentVolumeClaims = append(d.st.PersistentVolumeClaims, p)
}

// contentTypeAnnotation is the content type CDI marks the PVC of an import
// with; a golden's PVC carries "kubevirt".
const contentTypeAnnotation = "cdi.kubevirt.io/storage.contentType"

// goldenVolume binds a golden's bound PVC to its PersistentVolume (named
// pv-<golden>): on a healthy cluster a CSI volume of its class's driver (a
// host path for a class of noProvisioner or of none); on an unhealthy one
// also a CSI volume of another driver, a host path, one whose claimRef
// points at another claim (CDI's clone then errors and retries), or none
// at all (the volume is gone).
func (d *stateDraw) goldenVolume(p *corev1.PersistentVolumeClaim, class string) {
	t := d.t
	p.Spec.VolumeName = "pv-" + p.Name
	pv := corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: p.Spec.VolumeName}}
	pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: p.Namespace, Name: p.Name}
	pv.Spec.StorageClassName = class
	pv.Spec.Capacity = p.Status.Capacity.DeepCopy()
	pv.Spec.VolumeMode = p.Spec.VolumeMode
	pv.Status.Phase = corev1.VolumeBound
	driver := d.v.provisioner(class)
	if driver == noProvisioner {
		driver = ""
	}
	form := 0
	if d.unhealthy {
		form = pick(t, "goldenVolume", 8, 1, 1, 1, 1)
	} else if driver == "" && chance(t, "goldenVolumeForeign", 2) {
		form = 1
	}
	switch {
	case form == 4:
		return
	case form == 1:
		driver = foreignDriver
	case form == 2:
		driver = ""
	case form == 3:
		pv.Spec.ClaimRef.Name = p.Name + "-before"
	}
	if driver != "" {
		pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: pv.Name}
	} else {
		pv.Spec.HostPath = &corev1.HostPathVolumeSource{Path: "/var/lib/goldens/" + p.Name}
	}
	d.st.PersistentVolumes = append(d.st.PersistentVolumes, pv)
}

// goldenMeta is a golden's metadata as the catalog renders it; CDI copies
// the annotations and labels onto its PVC.
func goldenMeta(name string, f catalog.Flavor) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:      name,
		Namespace: naming.GoldenNamespace,
		Annotations: map[string]string{
			naming.ResourcePolicyAnnotation: "keep",
			naming.BindImmediateAnnotation:  "true",
			naming.UsePopulatorAnnotation:   "true",
			naming.SchematicIDAnnotation:    f.SchematicID,
			naming.VersionAnnotation:        f.Version,
		},
		Labels: map[string]string{naming.ManagedByLabel: naming.ManagedBy},
	}
}

// importStatus draws an import's status in a phase: a Running condition
// True or False with CDI's reasons, and importer restarts.
func importStatus(t *rapid.T, phase cdiv1.DataVolumePhase) cdiv1.DataVolumeStatus {
	s := cdiv1.DataVolumeStatus{Phase: phase}
	if phase == cdiv1.Succeeded {
		return s
	}
	switch pick(t, "running", 1, 1, 2) {
	case 1:
		s.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionTrue}}
	case 2:
		s.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse,
			Reason: rapid.SampledFrom([]string{"", "Pending", "Error", "ImagePullFailed", "Completed"}).Draw(t, "runningReason")}}
	}
	s.RestartCount = int32(rapid.IntRange(0, 4).Draw(t, "restarts"))
	return s
}

// bindPVC binds a PVC, its capacity its request or, as a provisioner that
// rounds up does, more.
func bindPVC(t *rapid.T, p *corev1.PersistentVolumeClaim, label string) {
	capacity := p.Spec.Resources.Requests[corev1.ResourceStorage].DeepCopy()
	if chance(t, label, 4) {
		capacity.Add(resource.MustParse("1Gi"))
	}
	p.Status.Phase = corev1.ClaimBound
	p.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: capacity}
}

// profileVolumeMode is the volume mode CDI gives a PVC of the class: its
// StorageProfile's status.claimPropertySets[0]'s, which must carry access
// modes (a nil mode is Filesystem, as the API server defaults it), nil
// when CDI cannot render a PVC of the class.
func (d *stateDraw) profileVolumeMode(class string) *corev1.PersistentVolumeMode {
	for _, sp := range d.st.StorageProfiles {
		if sp.Name != class {
			continue
		}
		sets := sp.Status.ClaimPropertySets
		if len(sets) == 0 || len(sets[0].AccessModes) == 0 {
			return nil
		}
		if m := sets[0].VolumeMode; m != nil && *m == corev1.PersistentVolumeBlock {
			return ptr.To(corev1.PersistentVolumeBlock)
		}
		return ptr.To(corev1.PersistentVolumeFilesystem)
	}
	return nil
}
