package plantest

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// disks draws a pool's worker disks in its namespace. A builtin pool may
// have already cloned its golden: its disks carry the golden's annotation
// and the pool's (naming.PoolCAPIName of its name), as the Helm
// implementation writes them; some are of an earlier golden or carry
// another pool's name, some are still cloning. Any pool may have disks of
// the HTTP path, which carry neither annotation.
func (d *stateDraw) disks(p plan.Pool) {
	t := d.t
	f, ok := Flavor(p)
	n := 0
	if ok {
		n = pick(t, "clonedDisks", 2, 3, 2, 1)
	}
	for i := range n {
		golden := goldenName(f)
		if chance(t, "earlierGolden", 6) {
			golden = goldenName(rapid.SampledFrom(d.v.flavors).Draw(t, "earlierFlavor"))
		}
		pool := naming.PoolCAPIName(p.Name)
		if chance(t, "otherPool", 8) {
			pool = naming.PoolCAPIName(p.Spec.Cluster + "-other")
		}
		class := p.Spec.StorageClass
		if class == "" {
			class = d.goldenClass[golden]
		}
		if class == "" || chance(t, "diskOnOtherClass", 3) {
			class = rapid.SampledFrom(d.v.Classes).Draw(t, "diskClass")
		}
		d.disk(p, "cloned-"+strconv.Itoa(i), map[string]string{naming.GoldenAnnotation: golden, naming.PoolAnnotation: pool},
			&cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: golden}}, class)
	}
	if chance(t, "httpDisk", 4) {
		d.disk(p, "http", nil, &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: naming.ImageURL(p.Spec.Talos.ImageFactoryURL, p.Spec.Talos.SchematicID, p.Spec.Talos.Version)}},
			rapid.SampledFrom(d.v.Classes).Draw(t, "httpDiskClass"))
	}
}

// disk adds one worker disk: its DataVolume and PVC, or one of them (CDI
// garbage-collected the DataVolume, or the PVC was not created yet).
func (d *stateDraw) disk(p plan.Pool, suffix string, annotations map[string]string, src *cdiv1.DataVolumeSource, class string) {
	t := d.t
	meta := metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name + "-" + suffix}
	if annotations != nil {
		meta.Annotations = annotations
	}
	size := resource.MustParse(chartdefaults.DiskSize)
	if q, err := resource.ParseQuantity(p.Spec.DiskSize); err == nil && q.Sign() > 0 {
		size = q
	}
	form := pick(t, "diskForm", 4, 2, 1)
	phase := cdiv1.Succeeded
	if form != 1 {
		dv := cdiv1.DataVolume{ObjectMeta: *meta.DeepCopy()}
		dv.Spec.Source = src.DeepCopy()
		dv.Spec.Storage = &cdiv1.StorageSpec{
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size.DeepCopy()}},
			StorageClassName: ptr.To(class),
		}
		if chance(t, "diskCloning", 4) {
			phase = rapid.SampledFrom([]cdiv1.DataVolumePhase{cdiv1.CloneScheduled, cdiv1.CSICloneInProgress, cdiv1.CloneInProgress, cdiv1.Pending, cdiv1.Failed}).Draw(t, "diskPhase")
		}
		dv.Status.Phase = phase
		d.st.DataVolumes = append(d.st.DataVolumes, dv)
	}
	if form == 2 {
		return
	}
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: *meta.DeepCopy()}
	pvc.Spec.StorageClassName = ptr.To(class)
	pvc.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
	pvc.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: size.DeepCopy()}
	if phase == cdiv1.Succeeded && (form == 0 || !chance(t, "diskPending", 5)) {
		bindPVC(t, &pvc, "diskCapacity")
	} else {
		pvc.Status.Phase = corev1.ClaimPending
	}
	d.st.PersistentVolumeClaims = append(d.st.PersistentVolumeClaims, pvc)
}
