package state_test

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

const (
	tenant = "tenant-a"
	pool   = "kubernetes-demo-md0"
	golden = "talos-worker-ce4c-v1.13.6"
)

// annotated is the pair of annotations a worker disk of pool cloned from
// golden carries.
func annotated(pool, golden string) map[string]string {
	return map[string]string{naming.PoolAnnotation: pool, naming.GoldenAnnotation: golden}
}

func pvc(ns, name, class string, phase corev1.PersistentVolumeClaimPhase, ann map[string]string) corev1.PersistentVolumeClaim {
	p := corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: phase},
	}
	if class != "" {
		p.Spec.StorageClassName = &class
	}
	return p
}

// dv builds a DataVolume on the storage API asking for class ("" asks for
// none).
func dv(ns, name, class string, phase cdiv1.DataVolumePhase, ann map[string]string) cdiv1.DataVolume {
	d := cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec:       cdiv1.DataVolumeSpec{Storage: &cdiv1.StorageSpec{}},
		Status:     cdiv1.DataVolumeStatus{Phase: phase},
	}
	if class != "" {
		d.Spec.Storage.StorageClassName = &class
	}
	return d
}

// dvPVCAPI builds a DataVolume on the older pvc API.
func dvPVCAPI(ns, name, class string, phase cdiv1.DataVolumePhase, ann map[string]string) cdiv1.DataVolume {
	d := cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec:       cdiv1.DataVolumeSpec{PVC: &corev1.PersistentVolumeClaimSpec{StorageClassName: &class}},
		Status:     cdiv1.DataVolumeStatus{Phase: phase},
	}
	return d
}

func sc(name string, ann map[string]string) storagev1.StorageClass {
	return storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}}
}
