package vmdisk_test

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// A VMDisk from the ubuntu image on a WaitForFirstConsumer class of the
// same LINSTOR driver as the image's: refused, naming the class to set.
func ExamplePlan() {
	const driver = "linstor.csi.linbit.com"
	golden := fixtures.PVC(naming.GoldenNamespace, "vm-default-images-ubuntu").Class("replicated").Size("20Gi").
		VolumeMode(corev1.PersistentVolumeBlock).Bound().Obj()
	snap := state.NewSnapshot(fixtures.State(state.AllKinds,
		fixtures.StorageClass("replicated").Provisioner(driver).Default().Obj(),
		fixtures.StorageClass("local").Provisioner(driver).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj(),
		fixtures.Profile("replicated", driver, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Profile("local", driver, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(driver), fixtures.CDIConfig(fixtures.DefaultOverhead),
		fixtures.DataVolume(naming.GoldenNamespace, "vm-default-images-ubuntu").HTTP("https://cloud-images.example.com/u.img").
			Size("20Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj(),
		golden, fixtures.VolumeOf(golden, driver)))
	images := vmimages.Decode(map[string]any{"images": []any{
		map[string]any{"name": "ubuntu", "url": "https://cloud-images.example.com/u.img", "storage": "20Gi"}}})

	disk, _ := vmdisk.Decode(map[string]any{
		"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
		"metadata": map[string]any{"namespace": "tenant-demo", "name": "data"},
		"spec": map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}},
			"storage": "20Gi", "storageClass": "local"}})
	res, err := vmdisk.Plan(disk, images, snap)
	fmt.Println(res.Outcome, errors.Is(err, guard.StorageClassMismatch), res.Refusals[0].Field)

	disk, _ = vmdisk.Decode(map[string]any{
		"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
		"metadata": map[string]any{"namespace": "tenant-demo", "name": "data"},
		"spec": map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}},
			"storage": "20Gi", "storageClass": "replicated"}})
	res, _ = vmdisk.Plan(disk, images, snap)
	fmt.Println(res.Outcome, res.DataVolume.Name, res.Clones)
	// Output:
	// refused true spec.storageClass
	// planned vm-disk-data cozy-public/vm-default-images-ubuntu
}
