package vmdisk_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// The cluster of these tests: Cozystack on LINSTOR, as in the report of a
// vm-disk that stays unbound for ever. Both classes are LINSTOR's: the
// default "replicated", which the goldens live on, and the node-local
// "local", which binds WaitForFirstConsumer.
const (
	tenant  = "tenant-demo"
	linstor = fixtures.ReplicatedProvisioner
	image   = "ubuntu"
	goldenN = vmimages.GoldenPrefix + image
)

func classes() []client.Object {
	return []client.Object{
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Expansion(true).Binding(storagev1.VolumeBindingImmediate).Obj(),
		fixtures.StorageClass("local").Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj(),
		fixtures.Profile("replicated", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Profile("local", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(linstor),
		fixtures.CDI(ptr(cdiv1.CloneStrategyCsiClone)),
		fixtures.CDIConfig(fixtures.DefaultOverhead, "replicated", "local"),
	}
}

// imageGolden is the golden of image ubuntu, imported, 20Gi on class.
func imageGolden(class string, phase cdiv1.DataVolumePhase) []client.Object {
	dv := fixtures.DataVolume(naming.GoldenNamespace, goldenN).HTTP("https://cloud-images.example.com/ubuntu.img").
		Size("20Gi").Class(class).Phase(phase).Obj()
	pvc := fixtures.PVC(naming.GoldenNamespace, goldenN).Class(class).Size("20Gi").VolumeMode(corev1.PersistentVolumeBlock).
		AccessModes(corev1.ReadWriteMany).Bound().Obj()
	return []client.Object{dv, pvc, fixtures.VolumeOf(pvc, linstor)}
}

// cluster is the fully observed cluster of objs beside the classes.
func cluster(objs ...client.Object) *state.Snapshot {
	return state.NewSnapshot(fixtures.State(state.AllKinds, append(classes(), objs...)...))
}

// healthy is the cluster with the golden imported on replicated.
func healthy() *state.Snapshot { return cluster(imageGolden("replicated", cdiv1.Succeeded)...) }

// catalogOf is the image catalog with ubuntu on replicated.
func catalogOf(t *testing.T) *vmimages.Catalog {
	t.Helper()
	return vmimages.Decode(values(t, `
images:
  - name: ubuntu
    url: https://cloud-images.example.com/ubuntu.img
    storage: 20Gi
`))
}

// disk decodes a VMDisk of tenant-demo from the YAML of its spec.
func disk(t *testing.T, name, spec string) vmdisk.VMDisk {
	t.Helper()
	obj := map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
		"metadata": map[string]any{"namespace": tenant, "name": name}}
	if spec != "" {
		obj["spec"] = values(t, spec)
	}
	d, err := vmdisk.Decode(obj)
	require.NoError(t, err)
	return d
}

// values reads YAML as Flux hands values to Helm: through JSON, every
// number a float64.
func values(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &m))
	return m
}

func ptr[T any](v T) *T { return &v }

// findings are the reasons and fields of a result's refusals and
// warnings, apart.
func refused(r vmdisk.Result) []fixtures.Finding { return fixtures.Of(r.Refusals) }

func warned(r vmdisk.Result) []fixtures.Finding { return fixtures.Warned(r.Warnings) }
