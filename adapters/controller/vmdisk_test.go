package controller_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

var vmDiskGVK = schema.GroupVersionKind{Group: "apps.cozystack.io", Version: "v1alpha1", Kind: "VMDisk"}

func newVMDisk(t *testing.T, e *apiserver.Env, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	e.Namespace(t, namespace)
	d := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	d.SetGroupVersionKind(vmDiskGVK)
	d.SetNamespace(namespace)
	d.SetName(name)
	require.NoError(t, e.Client.Create(context.Background(), d))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), d) })
	return d
}

func newRelease(t *testing.T, e *apiserver.Env, namespace, name string, spec map[string]any, labels map[string]string) *unstructured.Unstructured {
	t.Helper()
	e.Namespace(t, namespace)
	hr := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	hr.SetGroupVersionKind(helmReleaseGVK)
	hr.SetNamespace(namespace)
	hr.SetName(name)
	hr.SetLabels(labels)
	require.NoError(t, e.Client.Create(context.Background(), hr))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), hr) })
	return hr
}

func newSecret(t *testing.T, e *apiserver.Env, namespace, name, values string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, StringData: map[string]string{"values.yaml": values}}
	require.NoError(t, e.Client.Create(context.Background(), s))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), s) })
	return s
}

func setValues(t *testing.T, e *apiserver.Env, s *corev1.Secret, values string) {
	t.Helper()
	patch(t, e, s, map[string]any{"stringData": map[string]any{"values.yaml": values}}, false)
}

// The controller plans VM disks as the webhook does, and moves their
// metric and their Events on each change that moves a verdict (the image
// catalog edited through the Secret its release's valuesFrom names, the
// golden imported, the StorageProfile of the disk's class), and on none
// that cannot (another Secret, another class's profile, a disk that clones
// nothing).
func TestVMDiskVerdicts(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleases(t, e)
	ctx := context.Background()
	const ns, system = "tenant-vmd", "cozy-system"
	e.Namespace(t, system)
	reg := run(t, e.Config)
	replans := func(c require.TestingT, trigger string) float64 {
		return metric(c, reg, "worker_image_replan_duration_seconds", "trigger", trigger)
	}
	disks := func(c require.TestingT, outcome, reason string) float64 {
		return metric(c, reg, "worker_image_vm_disks", "outcome", outcome, "reason", reason)
	}

	values := newSecret(t, e, system, "vm-images-values", "images: []\n")
	unrelated := newSecret(t, e, system, "unrelated-values", "images: []\n")
	newRelease(t, e, system, "vm-default-images", map[string]any{"valuesFrom": []any{
		map[string]any{"kind": "Secret", "name": "cozystack-values"},
		map[string]any{"kind": "Secret", "name": values.Name},
	}}, nil)
	fromImage := newVMDisk(t, e, ns, "ubuntu", map[string]any{
		"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi", "storageClass": fixtures.ReplicatedClass})
	fromURL := newVMDisk(t, e, ns, "imported", map[string]any{
		"source": map[string]any{"http": map[string]any{"url": "https://cloud-images.example.com/other.img"}}})

	eventually(t, "no image in the catalog: the image's disk is refused, the imported one planned", func(c *assert.CollectT) {
		assert.Equal(c, 1.0, disks(c, "refused", "GoldenNotInCatalog"))
		assert.Equal(c, 1, events(c, e, fromImage, "GoldenNotInCatalog"))
		assert.Equal(c, 1.0, disks(c, "planned", "Planned"))
		assert.Equal(c, 1, events(c, e, fromURL, "Planned"))
	})

	t.Run("the image catalog, edited through its valuesFrom Secret", func(t *testing.T) {
		before := replans(t, "ValuesFrom")
		setValues(t, e, unrelated, "images: [{name: ubuntu, url: https://cloud-images.example.com/ubuntu.img}]\n")
		setValues(t, e, values, "images: [{name: ubuntu, url: https://cloud-images.example.com/ubuntu.img, storage: 20Gi}]\n")
		eventually(t, "the image is in the catalog: its golden is pending", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, disks(c, "refused", "GoldenNotInCatalog"))
			assert.Equal(c, 2.0, disks(c, "planned", "Planned"))
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_vm_disk_warnings", "reason", "GoldenPending"))
			assert.Equal(c, 1, events(c, e, fromImage, "Planned"))
			assert.Equal(c, 1, events(c, e, fromImage, "GoldenPending"))
		})
		assert.Equal(t, before+1, replans(t, "ValuesFrom"), "the image's disk alone is planned again, once: the other Secret is not watched, and the imported disk clones no image")
		assert.Equal(t, 1, events(t, e, fromURL, "Planned"), "the imported disk is not told again")
	})

	t.Run("the golden, imported", func(t *testing.T) {
		const golden = "vm-default-images-ubuntu"
		dv := fixtures.DataVolume(naming.GoldenNamespace, golden).HTTP("https://cloud-images.example.com/ubuntu.img").
			Size("20Gi").Class(fixtures.ReplicatedClass).Phase(cdiv1.Succeeded).Obj()
		pvc := fixtures.PVC(naming.GoldenNamespace, golden).Class(fixtures.ReplicatedClass).Size("20Gi").
			VolumeMode(corev1.PersistentVolumeBlock).AccessModes(corev1.ReadWriteMany).Bound().Obj()
		pvc.Spec.VolumeName = "pv-" + golden
		objs := []client.Object{dv, pvc, fixtures.VolumeOf(pvc, fixtures.ReplicatedProvisioner)}
		e.Create(t, objs...)
		t.Cleanup(func() {
			for _, o := range objs {
				_ = e.Client.Delete(ctx, o)
			}
		})
		eventually(t, "the golden is there: no warning", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, metric(c, reg, "worker_image_vm_disk_warnings", "reason", "GoldenPending"))
			assert.Equal(c, 2.0, disks(c, "planned", "Planned"))
			assert.Equal(c, 2, events(c, e, fromImage, "Planned"))
		})
	})

	t.Run("StorageProfile", func(t *testing.T) {
		strategy := func(class, s string) {
			patch(t, e, (&unstructuredProfile{class}).obj(), map[string]any{"status": map[string]any{"cloneStrategy": s}}, true)
		}
		before := replans(t, "StorageProfile")
		strategy(fixtures.LocalClass, "csi-clone")
		t.Cleanup(func() { strategy(fixtures.LocalClass, "copy") })
		strategy(fixtures.ReplicatedClass, "copy")
		t.Cleanup(func() { strategy(fixtures.ReplicatedClass, "csi-clone") })
		eventually(t, "its class's profile copies: a predicted host-assisted clone", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_vm_disk_predicted_host_assisted_clones"))
			assert.Equal(c, 1.0, disks(c, "refused", "HostAssistedClone"))
			assert.Equal(c, 1, events(c, e, fromImage, "HostAssistedClone"))
		})
		assert.Equal(t, before+1, replans(t, "StorageProfile"), "the other class's profile, changed first, planned nothing again, nor the imported disk")
		assert.Equal(t, 0.0, metric(t, reg, "worker_image_predicted_host_assisted_clones"), "no pool is counted")
		strategy(fixtures.ReplicatedClass, "csi-clone")
		eventually(t, "back to csi-clone", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, metric(c, reg, "worker_image_vm_disk_predicted_host_assisted_clones"))
			assert.Equal(c, 2.0, disks(c, "planned", "Planned"))
		})
	})

	t.Run("a vm-disk HelmRelease", func(t *testing.T) {
		hr := newRelease(t, e, ns, "vm-disk-other", map[string]any{"values": map[string]any{
			"source": map[string]any{"image": map[string]any{"name": "debian"}}, "storageClass": fixtures.ReplicatedClass,
		}}, map[string]string{"apps.cozystack.io/application.kind": "VMDisk", "apps.cozystack.io/application.group": "apps.cozystack.io"})
		eventually(t, "an image the catalog has not: refused, on the release", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, disks(c, "refused", "GoldenNotInCatalog"))
			assert.Equal(c, 1, events(c, e, hr, "GoldenNotInCatalog"))
		})
		require.NoError(t, e.Client.Delete(ctx, hr))
		eventually(t, "gone: not counted", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, disks(c, "refused", "GoldenNotInCatalog"))
		})
	})

	t.Run("its own DataVolume, created", func(t *testing.T) {
		strategy := func(s string) {
			patch(t, e, (&unstructuredProfile{fixtures.ReplicatedClass}).obj(), map[string]any{"status": map[string]any{"cloneStrategy": s}}, true)
		}
		strategy("copy")
		t.Cleanup(func() { strategy("csi-clone") })
		eventually(t, "refused again", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, disks(c, "refused", "HostAssistedClone"))
		})
		own := fixtures.DataVolume(ns, "vm-disk-ubuntu").HTTP("https://cloud-images.example.com/ubuntu.img").
			Size("20Gi").Class(fixtures.LocalClass).Phase(cdiv1.Succeeded).Obj()
		e.Create(t, own)
		t.Cleanup(func() { _ = e.Client.Delete(ctx, own) })
		eventually(t, "the chart keeps it: nothing is planned, and the disk is told so", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, disks(c, "refused", "HostAssistedClone"))
			assert.Equal(c, 2.0, disks(c, "planned", "Planned"))
			assert.Equal(c, 0.0, metric(c, reg, "worker_image_vm_disk_predicted_host_assisted_clones"))
		})
		planned := events(t, e, fromImage, "Planned")
		// Its creation and its status are two changes, planned again once
		// or twice as the queue merges them: count from after both.
		dataVolumes := settled(t, func() float64 { return replans(t, "DataVolume") })
		before := replans(t, "StorageProfile")
		strategy("csi-clone")
		other := fixtures.DataVolume(ns, "unrelated").HTTP("https://cloud-images.example.com/x.img").Size("1Gi").Obj()
		e.Create(t, other)
		t.Cleanup(func() { _ = e.Client.Delete(ctx, other) })
		// A change that moves it, after both: its own DataVolume, gone.
		require.NoError(t, e.Client.Delete(ctx, own))
		eventually(t, "its DataVolume gone: a create planned again", func(c *assert.CollectT) {
			assert.Equal(c, dataVolumes+1, replans(c, "DataVolume"), "once: another DataVolume of the namespace moves nothing")
			assert.Equal(c, 2.0, disks(c, "planned", "Planned"))
		})
		assert.Equal(t, before, replans(t, "StorageProfile"), "a disk whose DataVolume exists is not planned again on a profile's change")
		assert.Equal(t, planned, events(t, e, fromImage, "Planned"), "the verdict did not move: no Event")
	})
}

// settled is f's value once it has stayed the same for two seconds (a
// minute at most).
func settled(t *testing.T, f func() float64) float64 {
	t.Helper()
	v, since := f(), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if n := f(); n != v {
			v, since = n, time.Now()
		} else if time.Since(since) >= 2*time.Second {
			return v
		}
	}
	t.Fatalf("still moving after a minute: %v", v)
	return v
}
