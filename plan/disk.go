package plan

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// writeClone writes the clone's disk: its source the golden, its class the
// class the guards compared, its annotations what lets "does anything still
// clone this golden?" be answered before a delete.
func (p *planner) writeClone(cl *clone, class storage.Resolution) {
	d := diskentry.Disk{
		Name: DiskName, Clone: true,
		Golden: cl.goldenName, Pool: cl.pool,
		PVCNamespace: naming.GoldenNamespace, PVCName: cl.goldenName,
		Size: p.diskSize(),
	}
	p.res.StorageClass = class
	if class.Name == "" {
		// Offline with an empty class: left to whatever the default is when
		// the disk is applied, which StateUnverified says.
		p.res.StorageClass = storage.Resolution{From: storage.Cluster}
	} else {
		d.Class = class.Name
	}
	p.res.Source = Clone
	p.res.Golden = cl.goldenName
	p.res.DiskSize = d.Size
	p.writeDisk(&d, cl.size, cl.sizeOK)
}

// writeDisk keeps the disk in the form its caller asked for: the
// DataVolume entry Plan returns, or, for a renderer of the chart's text,
// the description the text is written from. Both are made from d, the one description
// of the disk: the entry's size request is size when sizeOK (else none, as
// the API server then rejects the text's size).
func (p *planner) writeDisk(d *diskentry.Disk, size resource.Quantity, sizeOK bool) {
	if p.entryOnly {
		p.entry = *d
		return
	}
	parts := &diskParts{}
	st := &parts.storage
	if sizeOK {
		st.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: size}
	}
	if d.Class != "" {
		parts.class = d.Class
		st.StorageClassName = &parts.class
	}
	p.res.Disk = Disk{ObjectMeta: metav1.ObjectMeta{Name: d.Name}, Spec: cdiv1.DataVolumeSpec{Storage: st}}
	if d.Clone {
		p.res.Disk.Annotations = map[string]string{
			naming.GoldenAnnotation: d.Golden,
			naming.PoolAnnotation:   d.Pool,
		}
		parts.pvc = cdiv1.DataVolumeSourcePVC{Namespace: d.PVCNamespace, Name: d.PVCName}
		parts.source.PVC = &parts.pvc
	} else {
		p.res.Disk.Annotations = map[string]string{naming.UsePopulatorAnnotation: d.UsePopulator}
		parts.http.URL = d.URL
		parts.source.HTTP = &parts.http
	}
	p.res.Disk.Spec.Source = &parts.source
}

// diskParts are the parts of a disk's spec that the DataVolume types hold
// by pointer, allocated as one: a fleet plans every pool on every
// reconcile.
type diskParts struct {
	storage cdiv1.StorageSpec
	source  cdiv1.DataVolumeSource
	http    cdiv1.DataVolumeSourceHTTP
	pvc     cdiv1.DataVolumeSourcePVC
	class   string
}
