package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// A VMDisk from a golden image into another class of the image's LINSTOR
// driver, one that binds WaitForFirstConsumer, stays unbound for ever once
// created, and nothing says why. With the webhook installed it is refused
// at kubectl apply, at spec.storageClass, naming the class the image lives
// on; the same VMDisk on that class is admitted, and so is its vm-disk
// HelmRelease, judged as the VMDisk it deploys.
func TestVMDiskOnAnotherClassIsRefusedAtApply(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	ctx := context.Background()
	s := serveWebhook(t, e, "worker-image-webhook-vmdisks")
	c, warned := warnedClient(t, e)

	// LINSTOR's node-local class: the image's driver, WaitForFirstConsumer.
	const local = "linstor-local"
	const golden = "vm-default-images-ubuntu"
	linstor := fixtures.ReplicatedProvisioner
	class := fixtures.StorageClass(local).Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj()
	profile := fixtures.Profile(local, linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone)
	dv := fixtures.DataVolume(naming.GoldenNamespace, golden).HTTP("https://cloud-images.example.com/ubuntu.img").
		Size("20Gi").Class(fixtures.ReplicatedClass).Phase(cdiv1.Succeeded).Obj()
	pvc := fixtures.PVC(naming.GoldenNamespace, golden).Class(fixtures.ReplicatedClass).Size("20Gi").
		VolumeMode(corev1.PersistentVolumeBlock).AccessModes(corev1.ReadWriteMany).Bound().Obj()
	pvc.Spec.VolumeName = "pv-" + golden
	objs := []client.Object{class, profile, dv, pvc, fixtures.VolumeOf(pvc, linstor)}
	e.Create(t, objs...)
	for _, o := range objs {
		removed(t, e, o)
	}
	images := helmRelease("cozy-system", "vm-default-images", map[string]any{"values": map[string]any{"images": []any{
		map[string]any{"name": "ubuntu", "url": "https://cloud-images.example.com/ubuntu.img", "storage": "20Gi"},
	}}})
	require.NoError(t, e.Client.Create(ctx, images))
	removed(t, e, images)
	apiserver.WaitCached(t, s.mgr.GetCache(), class, profile, dv, pvc)

	vmDisk := func(name, class string) *unstructured.Unstructured {
		spec := map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi"}
		if class != "" {
			spec["storageClass"] = class
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk", "spec": spec}}
		u.SetNamespace(fixtures.TenantNamespace)
		u.SetName(name)
		return u
	}

	t.Run("on another class of the driver: refused at apply, with the class to set", func(t *testing.T) {
		d := vmDisk("ubuntu-local", local)
		err := c.Create(ctx, d)
		assert.Equal(t, []string{"StorageClassMismatch spec.storageClass"}, causesOf(t, err))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `admission webhook "vmdisks.worker-image.cozystack.io" denied the request: VMDisk tenant-demo/ubuntu-local is refused`)
		assert.Contains(t, err.Error(), "set spec.storageClass: replicated, the class the image lives on")
		assert.True(t, apierrors.IsNotFound(e.Client.Get(ctx, client.ObjectKeyFromObject(d), d.DeepCopy())), "nothing was created")
	})

	t.Run("on the image's class: admitted", func(t *testing.T) {
		warned.take()
		d := vmDisk("ubuntu", fixtures.ReplicatedClass)
		err := c.Create(ctx, d)
		require.NoError(t, err, describe(err))
		removed(t, e, d)
		for _, w := range warned.take() {
			assert.False(t, strings.Contains(w, "StorageClassMismatch"), w)
		}
	})

	t.Run("its vm-disk HelmRelease is judged as the VMDisk", func(t *testing.T) {
		hr := helmRelease(fixtures.TenantNamespace, "vm-disk-ubuntu-local", map[string]any{
			"values": map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi", "storageClass": local},
		})
		hr.SetLabels(map[string]string{"apps.cozystack.io/application.kind": "VMDisk", "apps.cozystack.io/application.group": "apps.cozystack.io"})
		err := c.Create(ctx, hr)
		assert.Equal(t, []string{"StorageClassMismatch spec.values.storageClass"}, causesOf(t, err))
	})
}
