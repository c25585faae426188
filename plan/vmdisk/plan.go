package vmdisk

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The annotations and the label the vm-disk chart writes on its DataVolume.
const (
	opticalAnnotation = "vm-disk.cozystack.io/optical"
	instanceLabel     = "app.kubernetes.io/instance"
)

var dataVolumeType = metav1.TypeMeta{APIVersion: cdiv1.SchemeGroupVersion.String(), Kind: "DataVolume"}

// Result is a VMDisk's plan. A refused VMDisk (Refusals not empty) has
// only Namespace, Name, Outcome, Source, Warnings and Refusals set.
type Result struct {
	Namespace string       `json:"namespace"`
	Name      string       `json:"name"`
	Outcome   plan.Outcome `json:"outcome"`
	// Source is the source's kind: image, disk, http, upload or blank.
	Source string `json:"source"`
	// Clones is the PVC the disk clones, "<namespace>/<name>"; "" when it
	// clones none.
	Clones string `json:"clones"`
	// Exists reports that the DataVolume exists: the chart keeps its spec
	// as it is, so nothing is planned and DataVolume is the live one.
	Exists bool `json:"exists"`
	// DataVolume is what the chart renders (vm-disk-<name> in the tenant
	// namespace); nil when refused. A create's is the VMDisk's rendering,
	// made once by Decode and shared by every plan of it: read it, or
	// DeepCopy it to change it. An existing one is a copy of the live one.
	DataVolume *cdiv1.DataVolume `json:"dataVolume,omitempty"`
	// StorageClass is the class the disk binds on, and where it came from:
	// Cluster when it is left to the cluster and could not be resolved.
	StorageClass storage.Resolution `json:"storageClass"`
	Warnings     guard.Warnings     `json:"warnings"`
	Refusals     guard.Refusals     `json:"refusals"`
}

// Plan decides the DataVolume a VMDisk's chart creates, against the image
// catalog and a snapshot of the cluster, with typed refusals at the
// VMDisk's fields for every create CDI would never finish or would turn
// into a copy over the pod network. A disk cloned from an image or from
// another VMDisk gets the clone guards: the golden or disk missing or
// failed, no default class CDI reads, a class that does not exist or that
// CDI cannot render, a class other than the one its source lives on
// (StorageClassMismatch at spec.storageClass, the message naming the
// class to set), each proven cause of a copy over the pod network
// (HostAssistedClone), and a size the clone fails for
// (DiskSmallerThanGolden at spec.storage). An HTTP import, an upload and
// a blank disk need no guard.
// Only a create is planned: when the DataVolume vm-disk-<name> exists the
// chart keeps its spec, and the plan says so (Result.Exists). While
// DataVolumes of the namespace were not observed the plan is the create's,
// with a StateUnverified warning.
//
// The refusals come back on the result and as the error, nil when
// planned: errors.Is(err, guard.StorageClassMismatch) asks for a reason. A
// nil catalog knows no image (a golden that does not exist is then
// refused); a nil snapshot knows nothing of the cluster. Plan does no I/O,
// does not modify its inputs and is safe for concurrent use.
func Plan(d VMDisk, images *vmimages.Catalog, snap *state.Snapshot) (Result, error) {
	if snap == nil {
		snap = emptySnapshot
	}
	if d.root == nil {
		d.root = field.NewPath("spec")
		d.paths = fieldsOf(&d)
	}
	res := Result{Namespace: d.Namespace, Name: d.Name, Source: d.source, StorageClass: storage.Resolution{From: storage.Cluster}}
	var c findings.Collector
	c.Add(d.schema.Refusals())
	for _, w := range d.schema.Warnings() {
		c.AddWarning(w)
	}
	release := d.paths.release
	switch live := stateindex.Of(snap).DataVolume(d.Namespace, release); {
	case live != nil:
		res.Exists, res.DataVolume = true, live.DeepCopy()
		if class := stateindex.DataVolumeClass(live); class != "" {
			res.StorageClass = storage.Resolution{Name: class, From: storage.Explicit}
		}
	default:
		if !stateindex.Of(snap).Covers(state.DataVolume, d.Namespace, release) {
			w := findings.NewWarning(guard.StateUnverified, d.root,
				"DataVolumes of namespace %s were not observed, so this is the plan of a create: if %s exists, the chart keeps its spec as it is", d.Namespace, release)
			w.Kind = state.DataVolume.String()
			c.AddWarning(w)
		}
		c.Add(d.template.Refusals())
		for _, w := range d.template.Warnings() {
			c.AddWarning(w)
		}
		res.DataVolume = d.rendered
		if res.DataVolume == nil {
			res.DataVolume = d.render() // the zero VMDisk, not decoded
		}
		if d.class != "" {
			res.StorageClass = storage.Resolution{Name: d.class, From: storage.Explicit}
		}
		if src := res.DataVolume.Spec.Source.PVC; src != nil {
			res.Clones = d.paths.clonesRef
			// The guards judge a clone of a size: an invalid one is
			// refused already, and every other refusal comes with it.
			if !d.size.IsZero() {
				d.guard(&c, &res, images, snap)
			}
		}
	}
	if !c.Empty() {
		c.Stamp(d.paths.subject)
	}
	res.Warnings, res.Refusals = c.Warnings(), c.Refusals()
	if c.Refused() {
		return Result{Namespace: res.Namespace, Name: res.Name, Outcome: plan.Refused, Source: res.Source,
			StorageClass: res.StorageClass, Warnings: res.Warnings, Refusals: res.Refusals}, res.Refusals.Err()
	}
	res.Outcome = plan.Planned
	return res, nil
}

var emptySnapshot = state.NewSnapshot(nil)

// render is the DataVolume the chart creates. Its parts are allocated
// together, once per VMDisk: a fleet of disks is planned on every
// reconcile.
func (d *VMDisk) render() *cdiv1.DataVolume {
	name := d.paths.release
	r := &struct {
		dv      cdiv1.DataVolume
		storage cdiv1.StorageSpec
		source  cdiv1.DataVolumeSource
		pvc     cdiv1.DataVolumeSourcePVC
		class   string
	}{}
	dv := &r.dv
	dv.TypeMeta = dataVolumeType
	dv.Name, dv.Namespace = name, d.Namespace
	dv.Annotations = map[string]string{opticalAnnotation: d.optical}
	dv.Labels = map[string]string{instanceLabel: name}
	dv.Spec.ContentType = cdiv1.DataVolumeKubeVirt
	r.storage.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: d.size}
	dv.Spec.Storage = &r.storage
	if d.class != "" {
		r.class = d.class
		r.storage.StorageClassName = &r.class
	}
	s := &r.source
	dv.Spec.Source = s
	switch d.source {
	case sourceImage:
		if d.ref == "" {
			break // refused: the chart fails on it
		}
		r.pvc = cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: d.paths.clones}
		s.PVC = &r.pvc
	case sourceDisk:
		if d.ref == "" {
			break
		}
		r.pvc = cdiv1.DataVolumeSourcePVC{Namespace: d.Namespace, Name: d.paths.clones}
		s.PVC = &r.pvc
	case sourceHTTP:
		s.HTTP = &cdiv1.DataVolumeSourceHTTP{URL: d.ref}
	case sourceUpload:
		s.Upload = &cdiv1.DataVolumeSourceUpload{}
		// The chart asks CDI to bind at once, so the upload can start
		// before a VM consumes the disk.
		dv.Annotations[naming.BindImmediateAnnotation] = ""
	default:
		s.Blank = &cdiv1.DataVolumeBlankImage{}
	}
	return dv
}
