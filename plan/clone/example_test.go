package clone_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/clone"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A KubeVirt controller asks before it creates a DataVolume: the golden
// lives on replicated, the disk asks for local, a WaitForFirstConsumer
// class of the same LINSTOR driver. CDI would attempt a cross-class CSI
// clone that never binds; on replicated it clones at the storage layer.
func ExamplePlan() {
	const linstor = "linstor.csi.linbit.com"
	pvc := fixtures.PVC("cozy-public", "golden").Class("replicated").Size("20Gi").
		VolumeMode(corev1.PersistentVolumeBlock).AccessModes(corev1.ReadWriteMany).Bound().Obj()
	snap := state.NewSnapshot(fixtures.State(state.AllKinds,
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Expansion(true).Obj(),
		fixtures.StorageClass("local").Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj(),
		fixtures.Profile("replicated", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Profile("local", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(linstor), fixtures.CDI(nil), fixtures.CDIConfig(fixtures.DefaultOverhead),
		fixtures.DataVolume("cozy-public", "golden").HTTP("https://images.example.com/golden.img").Size("20Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj(),
		pvc, fixtures.VolumeOf(pvc, linstor)))

	for _, class := range []string{"local", "replicated"} {
		dv := fixtures.DataVolume("tenant-demo", "disk").ClonesPVC("cozy-public", "golden").Size("20Gi").Class(class).Obj()
		res, _ := clone.Plan(dv, snap) // the error is res.Refusals
		fmt.Println(class+":", res.Outcome, res.Method)
		for _, r := range res.Refusals {
			fmt.Println(" ", r.Reason, "at", r.Field)
		}
	}
	// Output:
	// local: refused csi-clone
	//   StorageClassMismatch at spec.storage.storageClassName
	// replicated: planned csi-clone
}
