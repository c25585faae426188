package vmdisk_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// TestUnboundForEver is the report of a vm-disk that stays unbound for
// ever, with no error shown: the golden image lives on replicated, the
// VMDisk asks for local, a WaitForFirstConsumer class of the same LINSTOR
// driver, so CDI attempts a cross-class CSI clone that never binds. The
// plan refuses it at spec.storageClass, naming the class to set; the same
// VMDisk on replicated is planned.
func TestUnboundForEver(t *testing.T) {
	snap, images := healthy(), catalogOf(t)
	res, err := vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: local}"), images, snap)
	require.Error(t, err)
	assert.True(t, errors.Is(err, guard.StorageClassMismatch))
	assert.Equal(t, plan.Refused, res.Outcome)
	assert.Equal(t, []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "spec.storageClass"}}, refused(res))
	msg := res.Refusals[0].Error()
	assert.Contains(t, msg, "set spec.storageClass: replicated", "the way out is one edit")
	assert.Contains(t, msg, `CSI driver "linstor.csi.linbit.com"`, "the consequence: one driver, a cross-class clone")
	assert.Contains(t, msg, "vmdisk tenant-demo/data", "the message names the VMDisk")

	res, err = vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: replicated}"), images, snap)
	require.NoError(t, err)
	assert.Equal(t, plan.Planned, res.Outcome)
	assert.Equal(t, storage.Resolution{Name: "replicated", From: storage.Explicit}, res.StorageClass)
	assert.Equal(t, "cozy-public/vm-default-images-ubuntu", res.Clones)
}

// TestCloneGuards: each guard the clone of an image or of a disk gets,
// triggered and just clear of it.
func TestCloneGuards(t *testing.T) {
	f := func(r guard.Reason, field string) fixtures.Finding { return fixtures.Finding{Reason: r, Field: field} }
	golden := func(phase cdiv1.DataVolumePhase, restarts int32) []client.Object {
		objs := imageGolden("replicated", phase)
		dv := objs[0].(*cdiv1.DataVolume)
		dv.Status.RestartCount = restarts
		if restarts > 0 {
			dv.Status.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse, Reason: "Error"}}
		}
		return objs
	}
	noDefault := func() []client.Object {
		objs := classes()
		objs[0] = fixtures.StorageClass("replicated").Provisioner(linstor).Expansion(true).Obj()
		return objs
	}
	base := fixtures.PVC(tenant, "vm-disk-base").Class("local").Size("20Gi").VolumeMode(corev1.PersistentVolumeBlock).Bound().Obj()
	cases := map[string]struct {
		reason  string
		spec    string
		snap    *state.Snapshot
		nilCat  bool
		refused []fixtures.Finding
		warns   []fixtures.Finding
	}{
		"golden missing, in no catalog": {reason: "nothing will ever make it", spec: "source: {image: {name: debian}}",
			snap: healthy(), refused: []fixtures.Finding{f(guard.GoldenNotInCatalog, "spec.source.image.name")}},
		"golden missing, no catalog given": {reason: "an absent golden is absent", spec: "source: {image: {name: ubuntu}}",
			snap: cluster(), nilCat: true, refused: []fixtures.Finding{f(guard.GoldenNotInCatalog, "spec.source.image.name")}},
		"golden missing, in the catalog": {reason: "its import comes: CDI holds the disk", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi}",
			snap: cluster(), warns: []fixtures.Finding{f(guard.GoldenPending, "spec.source.image.name")}},
		"golden importing": {reason: "CDI waits for it", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi}",
			snap: cluster(golden(cdiv1.ImportInProgress, 0)...), warns: []fixtures.Finding{f(guard.GoldenPending, "spec.source.image.name")}},
		"golden stalled": {reason: "importing, failing", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi}",
			snap: cluster(golden(cdiv1.ImportInProgress, 1)...), warns: []fixtures.Finding{f(guard.GoldenImportStalled, "spec.source.image.name")}},
		"golden failed": {reason: "the clone never starts", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi}",
			snap: cluster(golden(cdiv1.Failed, 0)...), refused: []fixtures.Finding{f(guard.GoldenImportFailed, "spec.source.image.name")}},
		"class \"\" resolves to the default": {reason: "CDI's default is the golden's class", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: ''}",
			snap: healthy()},
		"class \"\" without a default": {reason: "CDI renders no PVC", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: ''}",
			snap:    state.NewSnapshot(fixtures.State(state.AllKinds, append(noDefault(), imageGolden("replicated", cdiv1.Succeeded)...)...)),
			refused: []fixtures.Finding{f(guard.DefaultStorageClassUnresolvable, "spec.storageClass")}},
		"class missing": {reason: "no such StorageClass", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: fast}",
			snap: healthy(), refused: []fixtures.Finding{f(guard.StorageClassNotFound, "spec.storageClass"), f(guard.StorageClassMismatch, "spec.storageClass")}},
		"class without a profile": {reason: "CDI cannot render the PVC", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi}",
			snap:    state.NewSnapshot(fixtures.State(state.AllKinds, append(classes()[:2], append(classes()[3:], imageGolden("replicated", cdiv1.Succeeded)...)...)...)),
			refused: []fixtures.Finding{f(guard.DiskUnrenderable, "spec.storageClass")}},
		"disk under 1MiB": {reason: "CDI's webhook rejects it", spec: "{source: {image: {name: ubuntu}}, storage: 1Ki}",
			snap: healthy(), refused: []fixtures.Finding{f(guard.DiskUnrenderable, "spec.storage")}},
		"disk source on another class": {reason: "the source disk lives on local", spec: "{source: {disk: {name: base}}, storage: 20Gi}",
			snap: cluster(base), refused: []fixtures.Finding{f(guard.StorageClassMismatch, "spec.storageClass")}},
		"disk source on its class": {reason: "neighbour: the same class", spec: "{source: {disk: {name: base}}, storage: 20Gi, storageClass: local}",
			snap: cluster(base)},
		"disk source missing": {reason: "a VMDisk applied before the one it clones: CDI waits", spec: "{source: {disk: {name: base}}, storage: 20Gi}",
			snap: cluster(), warns: []fixtures.Finding{f(guard.GoldenPending, "spec.source.disk.name")}},
		"golden unobserved": {reason: "unknown is not absent", spec: "{source: {image: {name: debian}}, storage: 20Gi}",
			snap:  state.NewSnapshot(fixtures.State(state.AllKinds&^(state.DataVolume|state.PersistentVolumeClaim), classes()...)),
			warns: []fixtures.Finding{f(guard.StateUnverified, "spec.source.image.name")}},
		"classes unobserved": {reason: "the default is unknown", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: ''}",
			snap:  state.NewSnapshot(fixtures.State(state.AllKinds&^state.StorageClass, append(classes()[2:], imageGolden("replicated", cdiv1.Succeeded)...)...)),
			warns: []fixtures.Finding{f(guard.StateUnverified, "spec.storageClass")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			images := catalogOf(t)
			if tc.nilCat {
				images = nil
			}
			res, err := vmdisk.Plan(disk(t, "data", tc.spec), images, tc.snap)
			assert.Equal(t, tc.refused, refused(res), tc.reason)
			assert.Equal(t, len(tc.refused) > 0, err != nil)
			for _, w := range tc.warns {
				assert.Contains(t, warned(res), w, tc.reason)
			}
		})
	}
}

// TestNoGuardWithoutAClone: an HTTP import, an upload and a blank disk
// are planned on a class that does not exist, as the chart renders them:
// they clone nothing.
func TestNoGuardWithoutAClone(t *testing.T) {
	for _, spec := range []string{"{source: {http: {url: 'https://example.com/x.img'}}, storageClass: fast}", "{source: {upload: {}}, storageClass: fast}", "storageClass: fast"} {
		res, err := vmdisk.Plan(disk(t, "data", spec), catalogOf(t), healthy())
		require.NoError(t, err, spec)
		assert.Empty(t, res.Warnings, spec)
		assert.Equal(t, "", res.Clones)
	}
}

// TestSmallerThanTheImage: the vm-disk chart's default 5Gi from a 20Gi
// image, CDI's clone fails for good ("target resources requests storage
// size is smaller than the source").
func TestSmallerThanTheImage(t *testing.T) {
	res, _ := vmdisk.Plan(disk(t, "data", "source: {image: {name: ubuntu}}"), catalogOf(t), healthy())
	assert.Equal(t, []fixtures.Finding{{Reason: guard.DiskSmallerThanGolden, Field: "spec.storage"}}, refused(res))
	res, _ = vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi}"), catalogOf(t), healthy())
	assert.Empty(t, refused(res), "neighbour: the image's size")
}

// TestCopiedOverThePodNetwork: a class whose provisioner has no CSIDriver
// makes CDI copy host-assisted.
func TestCopiedOverThePodNetwork(t *testing.T) {
	objs := append(classes()[:4], classes()[5:]...) // no CSIDriver
	snap := state.NewSnapshot(fixtures.State(state.AllKinds, append(objs, imageGolden("replicated", cdiv1.Succeeded)...)...))
	res, _ := vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi}"), catalogOf(t), snap)
	assert.Equal(t, []fixtures.Finding{{Reason: guard.HostAssistedClone, Field: "spec.storageClass"}}, refused(res))
	res, _ = vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi}"), catalogOf(t), healthy())
	assert.Empty(t, refused(res), "neighbour: the driver's CSIDriver exists")
}

// TestEveryGuardRan: a healthy clone warns of nothing: no guard was left
// out, so none says it did not run.
func TestEveryGuardRan(t *testing.T) {
	res, err := vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi}"), catalogOf(t), healthy())
	require.NoError(t, err)
	assert.Empty(t, res.Warnings)
	res, _ = vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: local}"), catalogOf(t), healthy())
	assert.Equal(t, []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "spec.storageClass"}}, refused(res), "neighbour: a guard that refuses")
}

// TestFindingsAtTheReleasesValues: a vm-disk HelmRelease's findings are
// at its values' fields, each guard's at the field it judges.
func TestFindingsAtTheReleasesValues(t *testing.T) {
	hr := func(spec string) vmdisk.VMDisk {
		d, err := vmdisk.Decode(map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"namespace": tenant, "name": "vm-disk-data"},
			"spec":     map[string]any{"values": values(t, spec)}})
		require.NoError(t, err)
		return d
	}
	res, _ := vmdisk.Plan(hr("{source: {image: {name: ubuntu}}, storage: 10Gi}"), catalogOf(t), healthy())
	assert.Equal(t, []fixtures.Finding{{Reason: guard.DiskSmallerThanGolden, Field: "spec.values.storage"}}, refused(res))
	assert.Contains(t, res.Refusals[0].Detail, "set spec.values.storage to 20Gi or more")
	res, _ = vmdisk.Plan(hr("{source: {image: {name: ubuntu}}, storage: 20Gi}"), catalogOf(t), cluster(imageGolden("replicated", cdiv1.Failed)...))
	assert.Equal(t, []fixtures.Finding{{Reason: guard.GoldenImportFailed, Field: "spec.values.source.image.name"}}, refused(res))
	res, _ = vmdisk.Plan(hr("{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: local}"), catalogOf(t), healthy())
	require.Equal(t, []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "spec.values.storageClass"}}, refused(res))
	assert.Contains(t, res.Refusals[0].Detail, "set spec.values.storageClass: replicated, the class the image lives on")
}
