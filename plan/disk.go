package plan

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// writeClone writes the clone's disk: its source the golden, its class the
// class the guards compared, its annotations what lets "does anything still
// clone this golden?" be answered before a delete.
func (p *planner) writeClone(cl *clone) {
	parts := &diskParts{}
	st := &parts.storage
	if cl.sizeOK {
		st.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: cl.size}
	}
	p.res.StorageClass = cl.workerClass
	if cl.workerClass.Name == "" {
		// Offline with an empty class: left to whatever the default is when
		// the disk is applied, which StateUnverified says.
		p.res.StorageClass = storage.Resolution{From: storage.Cluster}
	} else {
		parts.class = cl.workerClass.Name
		st.StorageClassName = &parts.class
	}
	p.res.Source = Clone
	p.res.Golden = cl.goldenName
	p.res.DiskSize = p.diskSize()
	p.res.Disk = Disk{
		ObjectMeta: metav1.ObjectMeta{
			Name: DiskName,
			Annotations: map[string]string{
				naming.GoldenAnnotation: cl.goldenName,
				naming.PoolAnnotation:   cl.pool,
			},
		},
		Spec: cdiv1.DataVolumeSpec{
			Source:  parts.pvcSource(cl.goldenName),
			Storage: st,
		},
	}
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

func (d *diskParts) pvcSource(golden string) *cdiv1.DataVolumeSource {
	d.pvc = cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: golden}
	d.source.PVC = &d.pvc
	return &d.source
}

func (d *diskParts) httpSource(url string) *cdiv1.DataVolumeSource {
	d.http.URL = url
	d.source.HTTP = &d.http
	return &d.source
}
