package apiserver_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// TestVMDiskUnboundForEverReadLive is a VM disk unbound for ever, cloned across
// classes, on a real API server, planned through vmdisk.Plan on the state each
// live reader reads (the webhook's test judges the same at apply): the golden
// image debian imported on replicated (LINSTOR), and a VMDisk asking for
// linstor-node-local, a WaitForFirstConsumer class of the same LINSTOR driver.
// CDI would attempt a cross-class CSI clone that never binds, and nothing would
// say so; the plan refuses it at spec.storageClass, naming the class to set.
// The same VMDisk on replicated is planned; on the fixture's local (another CSI
// driver) it is refused too, CDI copying over the pod network.
func TestVMDiskUnboundForEverReadLive(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	const golden = vmimages.GoldenPrefix + "debian"
	linstorLocal := fixtures.StorageClass("linstor-node-local").Provisioner(fixtures.ReplicatedProvisioner).Expansion(true).
		Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj()
	dv := fixtures.DataVolume(naming.GoldenNamespace, golden).HTTP("https://cloud-images.example.com/debian.img").
		Size("20Gi").Class(fixtures.ReplicatedClass).Phase(cdiv1.Succeeded).Obj()
	pvc := fixtures.PVC(naming.GoldenNamespace, golden).Class(fixtures.ReplicatedClass).Size("20Gi").
		VolumeMode(corev1.PersistentVolumeBlock).AccessModes(corev1.ReadWriteMany).Bound().Obj()
	pvc.Spec.VolumeName = "pv-" + golden
	objs := []client.Object{linstorLocal,
		fixtures.Profile("linstor-node-local", fixtures.ReplicatedProvisioner, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		dv, pvc, fixtures.VolumeOf(pvc, fixtures.ReplicatedProvisioner)}
	e.Create(t, objs...)
	deleted(t, e, objs...)

	images := vmimages.Decode(valuesOf(t, "images: [{name: debian, url: 'https://cloud-images.example.com/debian.img', storage: 20Gi}]"))
	disk := func(class string) vmdisk.VMDisk {
		d, err := vmdisk.Decode(map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
			"metadata": map[string]any{"namespace": fixtures.TenantNamespace, "name": "data"},
			"spec":     valuesOf(t, "{source: {image: {name: debian}}, storage: 20Gi, storageClass: "+class+"}")})
		require.NoError(t, err)
		return d
	}
	// What a VMDisk's plan reads, as it says: the golden by name, the
	// disk's own DataVolume by name, the cluster-scoped kinds.
	req := vmdisk.NeedsAll([]vmdisk.VMDisk{disk("linstor-node-local"), disk(fixtures.ReplicatedClass)})
	cache := e.Cache(t, e.Config)
	apiserver.WaitCached(t, cache, objs...)
	cg, err := clientGo(t, e.Config, req)
	require.NoError(t, err)
	cr, err := controllerRuntime(cache, req)
	require.NoError(t, err)

	for name, st := range map[string]*state.State{"client-go": cg, "controller-runtime (cache)": cr} {
		t.Run(name, func(t *testing.T) {
			snap := state.NewSnapshot(st)
			res, err := vmdisk.Plan(disk("linstor-node-local"), images, snap)
			require.Error(t, err)
			assert.True(t, errors.Is(err, guard.StorageClassMismatch))
			assert.Equal(t, []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "spec.storageClass"}}, fixtures.Of(res.Refusals))
			msg := res.Refusals[0].Error()
			assert.Contains(t, msg, `CSI driver "linstor.csi.linbit.com"`, "one driver: a cross-class CSI clone")
			assert.Contains(t, msg, "WaitForFirstConsumer")
			assert.Contains(t, msg, "set spec.storageClass: replicated, the class the image lives on")

			res, err = vmdisk.Plan(disk(fixtures.ReplicatedClass), images, snap)
			require.NoError(t, err, "the same VMDisk on the image's class")
			assert.Equal(t, plan.Planned, res.Outcome)
			assert.Empty(t, res.Warnings, "every guard ran on what was read")
			assert.Equal(t, "cozy-public/"+golden, res.Clones)

			res, _ = vmdisk.Plan(disk(fixtures.LocalClass), images, snap)
			require.Equal(t, []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "spec.storageClass"}}, fixtures.Of(res.Refusals))
			assert.Contains(t, res.Refusals[0].Error(), "over the pod network", "another driver: a copy")
		})
	}
}

func valuesOf(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &m))
	return m
}
