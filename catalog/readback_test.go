package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func TestReadBack(t *testing.T) {
	const idC = "ccc333"
	dvA := liveDV(idA, urlA, "6144Mi", "")
	pvcB := livePVC(idB, "local", "7Gi", "https://mirror.example/image/"+idB+"/"+v1136+"/openstack-amd64.raw.xz")
	pvcC := livePVC(idC, "replicated", "6Gi", "")

	noLabel := liveDV("ddd444", naming.ImageURL(factory, "ddd444", v1136), "6Gi", "")
	noLabel.Labels = nil
	otherNS := liveDV("eee555", naming.ImageURL(factory, "eee555", v1136), "6Gi", "")
	otherNS.Namespace = tenantNS
	misnamed := liveDV("fff666", naming.ImageURL(factory, "fff666", v1136), "6Gi", "")
	misnamed.Name = "my-copy"
	noVersion := liveDV("ggg777", naming.ImageURL(factory, "ggg777", v1136), "6Gi", "")
	delete(noVersion.Annotations, naming.VersionAnnotation)

	snap := state.NewSnapshot(cluster(
		[]cdiv1.DataVolume{noLabel, dvA, otherNS, misnamed, noVersion},
		[]corev1.PersistentVolumeClaim{pvcC, livePVC(idA, "replicated", "6Gi", ""), pvcB},
	))
	v, warnings := ReadBack(snap)
	assert.Empty(t, warnings)
	assert.True(t, v.Enabled, "the catalog read back is enabled")
	assert.Equal(t, "", v.StorageClass, "the global class is empty, so a classless golden's entry stays classless")
	assert.Equal(t, []Image{
		{Flavor: Flavor{SchematicID: idA, Version: v1136}, ImageFactoryURL: factory, Storage: "6Gi", StorageClass: ""},
		{Flavor: Flavor{SchematicID: idB, Version: v1136}, ImageFactoryURL: "https://mirror.example", Storage: "7Gi", StorageClass: "local"},
		{Flavor: Flavor{SchematicID: idC, Version: v1136}, Storage: "6Gi", StorageClass: "replicated"},
	}, v.Images, "one entry per golden (DataVolume or PVC alone), by name, as the golden has it; not the unlabelled, the misplaced, the misnamed, the half-annotated")

	c := Compile(v)
	require.NoError(t, c.Refusals().Err())
	e, ok := c.LookupGolden(naming.GoldenPrefix + idC + "-" + v1136)
	require.True(t, ok)
	assert.Equal(t, factory, e.ImageFactoryURL, "a golden that does not show its factory falls back to the chart's")
}

func TestReadBackRendersWhatExists(t *testing.T) {
	live := liveDV(idA, urlA, "6144Mi", "")
	snap := state.NewSnapshot(cluster(
		[]cdiv1.DataVolume{live},
		[]corev1.PersistentVolumeClaim{livePVC(idA, "replicated", "6Gi", ""), livePVC(idB, "local", "7Gi", "")},
	))
	v, _ := ReadBack(snap)
	res, err := Render(Compile(v), snap)
	require.NoError(t, err, "a catalog read back from a cluster is no edit of it")
	require.Len(t, res.Goldens, 2)
	assert.Equal(t, live.Spec, res.Goldens[0].Spec)
	assert.Empty(t, res.Unmanaged, "the catalog read back manages every golden")
}

func TestReadBackUnobserved(t *testing.T) {
	s := cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "")}, nil)
	s.Namespaces = []string{tenantNS}
	v, warnings := ReadBack(state.NewSnapshot(s))
	assert.Empty(t, v.Images, "an object outside what was observed is not read back")
	assert.Equal(t, []fixtures.Finding{{Reason: guard.StateUnverified, Field: "images"}, {Reason: guard.StateUnverified, Field: "images"}}, fixtures.Warned(warnings),
		"one StateUnverified per kind not observed in cozy-public: the goldens read back may miss some")
	assert.Equal(t, []string{"PersistentVolumeClaim", "DataVolume"}, []string{warnings[0].Kind, warnings[1].Kind}, "each names its kind")

	s.Namespaces = []string{tenantNS, naming.GoldenNamespace}
	v, warnings = ReadBack(state.NewSnapshot(s))
	assert.Len(t, v.Images, 1, "neighbour: observing cozy-public is enough")
	assert.Empty(t, warnings)
}

func TestReadBackNil(t *testing.T) {
	v, warnings := ReadBack(nil)
	assert.Equal(t, []Image{}, v.Images)
	assert.Len(t, warnings, 2)
}

func TestGoldenFlavor(t *testing.T) {
	m := fixtures.GoldenVolume(idA, v1136).Obj().ObjectMeta
	assert.True(t, goldenFlavor(&m))
	other := m
	other.Labels = map[string]string{naming.ManagedByLabel: "helm"}
	assert.False(t, goldenFlavor(&other), "another manager's object is not a golden")
	swapped := metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name, Labels: m.Labels,
		Annotations: map[string]string{naming.SchematicIDAnnotation: idB, naming.VersionAnnotation: v1136}}
	assert.False(t, goldenFlavor(&swapped), "a name that is not its annotations' flavor is not a golden")
}
