package stateindex_test

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
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

// pvc is a PVC on class ("" names none) in phase.
func pvc(ns, name, class string, phase corev1.PersistentVolumeClaimPhase, ann map[string]string) corev1.PersistentVolumeClaim {
	return *fixtures.PVC(ns, name).Class(class).Phase(phase).Annotations(ann).Obj()
}

// dv is a DataVolume on the storage API asking for class ("" asks for
// none).
func dv(ns, name, class string, phase cdiv1.DataVolumePhase, ann map[string]string) cdiv1.DataVolume {
	return *fixtures.DataVolume(ns, name).Class(class).Phase(phase).Annotations(ann).Obj()
}

// dvPVCAPI is a DataVolume on the older pvc API.
func dvPVCAPI(ns, name, class string, phase cdiv1.DataVolumePhase, ann map[string]string) cdiv1.DataVolume {
	return *fixtures.DataVolume(ns, name).PVCAPI().Class(class).Phase(phase).Annotations(ann).Obj()
}

func sc(name string, ann map[string]string) storagev1.StorageClass {
	return *fixtures.StorageClass(name).Annotations(ann).Obj()
}

// index is the index of a snapshot of s.
func index(s *state.State) *stateindex.Index { return stateindex.Of(state.NewSnapshot(s)) }
