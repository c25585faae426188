package invariants_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// TestVMDiskNeedsIsEnough: an adapter that reads exactly what
// vmdisk.NeedsAll asks for plans every VMDisk as if it had read the whole
// cluster, and the request lists no namespaced kind: a VMDisk's plan reads
// its objects by name.
func TestVMDiskNeedsIsEnough(t *testing.T) {
	const tenant, linstor = "tenant-demo", fixtures.ReplicatedProvisioner
	golden := func(name, ns, class string, phase cdiv1.DataVolumePhase) []client.Object {
		dv := fixtures.DataVolume(ns, name).HTTP("https://images.example.com/" + name + ".img").Size("20Gi").Class(class).Phase(phase).Obj()
		pvc := fixtures.PVC(ns, name).Class(class).Size("20Gi").VolumeMode(corev1.PersistentVolumeBlock).
			AccessModes(corev1.ReadWriteMany).Bound().Obj()
		return []client.Object{dv, pvc, fixtures.VolumeOf(pvc, linstor)}
	}
	objs := []client.Object{
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Expansion(true).Binding(storagev1.VolumeBindingImmediate).Obj(),
		fixtures.StorageClass("local").Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj(),
		fixtures.Profile("replicated", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Profile("local", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(linstor),
		fixtures.CDIConfig(fixtures.DefaultOverhead, "replicated", "local"),
		// An unrelated disk of the tenant, which no plan here reads.
		fixtures.PVC(tenant, "unrelated").Class("local").Size("1Gi").Bound().Obj(),
	}
	objs = append(objs, golden(vmimages.GoldenPrefix+"ubuntu", naming.GoldenNamespace, "replicated", cdiv1.Succeeded)...)
	objs = append(objs, golden(vmimages.GoldenPrefix+"fedora", naming.GoldenNamespace, "replicated", cdiv1.ImportInProgress)...)
	objs = append(objs, golden("vm-disk-base", tenant, "local", cdiv1.Succeeded)...)
	objs = append(objs, fixtures.DataVolume(tenant, "vm-disk-kept").HTTP("https://images.example.com/kept.img").Size("5Gi").Class("local").Phase(cdiv1.Succeeded).Obj())
	st := fixtures.State(state.AllKinds, objs...)

	specs := map[string]map[string]any{
		"image on its class":     {"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi"},
		"image on another class": {"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi", "storageClass": "local"},
		"image still importing":  {"source": map[string]any{"image": map[string]any{"name": "fedora"}}, "storage": "20Gi"},
		"image not there":        {"source": map[string]any{"image": map[string]any{"name": "arch"}}},
		"another disk":           {"source": map[string]any{"disk": map[string]any{"name": "base"}}, "storage": "20Gi", "storageClass": "local"},
		"http":                   {"source": map[string]any{"http": map[string]any{"url": "https://images.example.com/x.img"}}},
		"blank":                  {},
	}
	var disks []vmdisk.VMDisk
	var names []string
	for name, spec := range specs {
		d, err := vmdisk.Decode(map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
			"metadata": map[string]any{"namespace": tenant, "name": "d" + string(rune('a'+len(disks)))}, "spec": spec})
		require.NoError(t, err)
		disks, names = append(disks, d), append(names, name)
	}
	kept, err := vmdisk.Decode(map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
		"metadata": map[string]any{"namespace": tenant, "name": "kept"}, "spec": specs["image on another class"]})
	require.NoError(t, err)
	disks, names = append(disks, kept), append(names, "exists")

	images := vmimages.Decode(map[string]any{"images": []any{
		map[string]any{"name": "ubuntu", "url": "https://images.example.com/ubuntu.img", "storage": "20Gi"},
		map[string]any{"name": "fedora", "url": "https://images.example.com/fedora.img", "storage": "20Gi"},
	}})
	req := vmdisk.NeedsAll(disks)
	for _, l := range req.Lists {
		assert.Empty(t, l.Namespace, "a namespaced list: %v", l)
	}
	read := state.NewSnapshot(readAsAsked(st, req))
	full := state.NewSnapshot(st)
	outcomes := map[string]bool{}
	for i, d := range disks {
		want, _ := vmdisk.Plan(d, images, full)
		got, _ := vmdisk.Plan(d, images, read)
		outcomes[string(want.Outcome)] = true
		assert.True(t, equality.Semantic.DeepEqual(want, got), "%s: planned differently from what Needs asked for\nwhole cluster: %+v\nas asked:      %+v", names[i], want, got)
		for _, w := range got.Warnings {
			// A kind left unread: what Needs asked for did not cover it.
			assert.False(t, w.Reason == guard.StateUnverified && w.Kind != "", "%s: %s %s", names[i], w.Kind, w.String())
		}
	}
	assert.Len(t, outcomes, 2, "the disks are planned and refused both: %v", outcomes)

	// Just clear of it: without the gets, the clone is not the same plan.
	none := state.NewSnapshot(readAsAsked(st, state.Request{Lists: req.Lists}))
	want, _ := vmdisk.Plan(disks[0], images, full)
	got, _ := vmdisk.Plan(disks[0], images, none)
	assert.False(t, equality.Semantic.DeepEqual(want, got), "a plan that read no object by name is the whole cluster's")
}
