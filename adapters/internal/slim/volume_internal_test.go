package slim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// A volume bound to a claim outside the goldens' namespace keeps only its
// name, its claim and its CSI driver, and a VM disk cloning that claim is
// planned alike over it as over the whole volume: same driver, another
// driver, a claimRef naming another claim, no CSI driver at all.
func TestTransformVolumeBoundElsewhere(t *testing.T) {
	const ns, driver = "tenant-demo", "linstor.csi.linbit.com"
	src := fixtures.PVC(ns, "vm-disk-base").Class("replicated").Size("20Gi").Capacity("20Gi").
		VolumeMode(corev1.PersistentVolumeBlock).Bound().Obj()
	src.Spec.VolumeName = "pv-base"
	disk, err := vmdisk.Decode(map[string]any{
		"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
		"metadata": map[string]any{"namespace": ns, "name": "data"},
		"spec": map[string]any{"source": map[string]any{"disk": map[string]any{"name": "base"}},
			"storage": "20Gi", "storageClass": "replicated"}})
	require.NoError(t, err)
	images := vmimages.Decode(map[string]any{"images": []any{}})

	volumes := map[string]*corev1.PersistentVolume{
		"same driver":    fixtures.VolumeOf(src, driver),
		"another driver": fixtures.VolumeOf(src, "other.csi.example.com"),
		"another claim":  fixtures.Volume("pv-base").CSI(driver).ClaimRef(ns, "someone-else").Class("replicated").Size("20Gi").Obj(),
		"no CSI":         fixtures.Volume("pv-base").HostPath("/data").ClaimRef(ns, src.Name).Class("replicated").Size("20Gi").Obj(),
	}
	verdicts := map[string]string{}
	for name, pv := range volumes {
		t.Run(name, func(t *testing.T) {
			st := fixtures.State(state.AllKinds,
				fixtures.StorageClass("replicated").Provisioner(driver).Default().Obj(),
				fixtures.Profile("replicated", driver, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
				fixtures.Driver(driver), fixtures.CDIConfig(fixtures.DefaultOverhead),
				fixtures.DataVolume(ns, "vm-disk-base").HTTP("https://images.example.com/base.img").
					Size("20Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj(),
				src, pv)
			respell(st)
			thin := slim(t, st)
			got := thin.PersistentVolumes[0]
			assert.Empty(t, got.UID, "the volume is reduced")
			assert.Nil(t, got.Spec.Capacity, "the volume is reduced")
			assert.Empty(t, got.Status.Phase, "the volume is reduced")
			assert.Equal(t, pv.Spec.ClaimRef.Name, got.Spec.ClaimRef.Name)

			whole, err := vmdisk.Plan(disk, images, state.NewSnapshot(st))
			reduced, rerr := vmdisk.Plan(disk, images, state.NewSnapshot(thin))
			assert.Equal(t, err, rerr)
			assert.Equal(t, whole, reduced)
			verdicts[name] = fmt.Sprint(whole.Outcome, whole.Warnings, whole.Refusals)
		})
	}
	// The volume's claim and driver move the verdict: the cases above
	// compare what matters.
	assert.NotEqual(t, verdicts["same driver"], verdicts["another driver"])
	assert.NotEqual(t, verdicts["same driver"], verdicts["another claim"])
}

// A volume bound in the goldens' namespace, and one bound to no claim (an
// Available volume a claim may bind), keep their class, size and modes.
func TestTransformVolumeKeptWhole(t *testing.T) {
	golden := fixtures.Volume("pv-golden").CSI("d").ClaimRef(naming.GoldenNamespace, "g").Class("c").Size("1Gi").Obj()
	free := fixtures.Volume("pv-free").CSI("d").Class("c").Size("1Gi").Available().Obj()
	for _, pv := range []*corev1.PersistentVolume{golden, free} {
		_, err := Transform(pv)
		require.NoError(t, err)
		assert.Equal(t, "c", pv.Spec.StorageClassName, pv.Name)
		assert.NotNil(t, pv.Spec.Capacity, pv.Name)
		assert.NotEmpty(t, pv.Status.Phase, pv.Name)
	}
}
