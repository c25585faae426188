package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// specGolden is the golden DataVolume the catalog chart renders, its
// placeholders filled in.
const specGolden = `
apiVersion: cdi.kubevirt.io/v1beta1
kind: DataVolume
metadata:
  name: talos-worker-aaa111-v1.13.6
  namespace: cozy-public
  annotations:
    helm.sh/resource-policy: keep
    cdi.kubevirt.io/storage.bind.immediate.requested: "true"
    cdi.kubevirt.io/storage.usePopulator: "true"
    kubernetes-worker-image.cozystack.io/schematic-id: "aaa111"
    kubernetes-worker-image.cozystack.io/talos-version: "v1.13.6"
  labels:
    app.kubernetes.io/managed-by: cozystack
spec:
  contentType: kubevirt
  source:
    http:
      url: "https://factory.talos.dev/image/aaa111/v1.13.6/openstack-amd64.raw.xz"
  storage:
    resources:
      requests:
        storage: "6Gi"
    storageClassName: "replicated"
`

// TestRenderGoldenIsSpecObject compares the whole golden, field by field,
// with the chart's: once against its text decoded, and once
// spelled out, so that a field both sides lost is still caught.
func TestRenderGoldenIsSpecObject(t *testing.T) {
	res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(cluster(nil, nil)))
	require.NoError(t, err)
	require.Len(t, res.Goldens, 1)
	got := res.Goldens[0]

	var fromSpec cdiv1.DataVolume
	require.NoError(t, yaml.UnmarshalStrict([]byte(specGolden), &fromSpec))
	assert.Equal(t, fromSpec, got, "the render is the chart's golden")

	assert.Equal(t, metav1.TypeMeta{APIVersion: "cdi.kubevirt.io/v1beta1", Kind: "DataVolume"}, got.TypeMeta)
	assert.Equal(t, goldenA, got.Name)
	assert.Equal(t, "cozy-public", got.Namespace)
	assert.Equal(t, map[string]string{
		"helm.sh/resource-policy":                            "keep",
		"cdi.kubevirt.io/storage.bind.immediate.requested":   "true",
		"cdi.kubevirt.io/storage.usePopulator":               "true",
		"kubernetes-worker-image.cozystack.io/schematic-id":  idA,
		"kubernetes-worker-image.cozystack.io/talos-version": v1136,
	}, got.Annotations)
	assert.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "cozystack"}, got.Labels)
	assert.Empty(t, got.GenerateName)
	assert.Empty(t, got.OwnerReferences)
	assert.Equal(t, cdiv1.DataVolumeSpec{
		ContentType: "kubevirt",
		Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "https://factory.talos.dev/image/aaa111/v1.13.6/openstack-amd64.raw.xz"}},
		Storage: &cdiv1.StorageSpec{
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("6Gi")}},
			StorageClassName: ptr.To("replicated"),
		},
	}, got.Spec)
	q := got.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
	assert.Equal(t, "6Gi", q.String())
	assert.Equal(t, cdiv1.DataVolumeStatus{}, got.Status, "a render carries no status")
}

func TestRenderLeavesEmptyClassOut(t *testing.T) {
	v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})
	v.StorageClass = ""
	res, err := Render(Compile(v), state.NewSnapshot(cluster(nil, nil)))
	require.NoError(t, err)
	require.Len(t, res.Goldens, 1)
	assert.Nil(t, res.Goldens[0].Spec.Storage.StorageClassName, "an empty class is left out, so the cluster picks")
	text, err := yaml.Marshal(res.Goldens[0])
	require.NoError(t, err)
	assert.NotContains(t, string(text), "storageClassName")
}

func TestRenderOneGoldenPerEntry(t *testing.T) {
	v := values(
		Image{Flavor: Flavor{SchematicID: idB, Version: v1136}, Storage: "8Gi", StorageClass: "local", ImageFactoryURL: "https://mirror.example"},
		Image{Flavor: Flavor{SchematicID: idA, Version: v1136}},
	)
	res, err := Render(Compile(v), state.NewSnapshot(cluster(nil, nil)))
	require.NoError(t, err)
	require.Len(t, res.Goldens, 2)
	b := res.Goldens[0]
	assert.Equal(t, goldenB, b.Name, "goldens come in images[] order")
	assert.Equal(t, "https://mirror.example/image/bbb222/v1.13.6/openstack-amd64.raw.xz", b.Spec.Source.HTTP.URL)
	assert.Equal(t, "local", *b.Spec.Storage.StorageClassName)
	q := b.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
	assert.Equal(t, "8Gi", q.String())
	assert.Equal(t, goldenA, res.Goldens[1].Name)
}

func TestRenderDisabled(t *testing.T) {
	v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})
	v.Enabled = false
	res, err := Render(Compile(v), state.NewSnapshot(cluster(nil, nil)))
	require.NoError(t, err)
	assert.Empty(t, res.Goldens, "a disabled catalog renders nothing")

	v.Images[0].Version = "v1"
	_, err = Render(Compile(v), state.NewSnapshot(cluster(nil, nil)))
	assert.Equal(t, []fixtures.Finding{{Reason: guard.InvalidVersion, Field: "images[0].version"}}, fixtures.Refused(err), "a disabled catalog is still validated")
}

func TestRenderDisabledComparesNothing(t *testing.T) {
	v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "9Gi"})
	v.Enabled = false
	snap := state.NewSnapshot(cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "replicated")}, nil))
	res, err := Render(Compile(v), snap)
	assert.NoError(t, err, "a disabled catalog applies nothing, so it edits nothing")
	assert.Equal(t, []string{goldenA}, res.Unmanaged, "and no entry manages the golden")
}

func TestRenderRefusedRendersNothing(t *testing.T) {
	v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idB, Version: v1136}, Storage: "0"})
	res, err := Render(Compile(v), state.NewSnapshot(cluster(nil, nil)))
	assert.Equal(t, []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "images[1].storage"}}, fixtures.Refused(err))
	assert.Equal(t, res.Refusals.Err(), err, "the error is the result's refusals")
	assert.Empty(t, res.Goldens, "a refused catalog renders no golden, not even the valid ones")
}

func TestRenderReproducesLiveSpec(t *testing.T) {
	live := liveDV(idA, "https://FACTORY.talos.dev:443/image/aaa111/v1.13.6/openstack-amd64.raw.xz", "6144Mi", "")
	live.Spec.Source.HTTP.CertConfigMap = "factory-ca"
	live.Spec.Storage.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})
	v.StorageClass = ""
	res, err := Render(Compile(v), state.NewSnapshot(cluster([]cdiv1.DataVolume{live}, nil)))
	require.NoError(t, err, "6Gi is 6144Mi, the URLs are the same, both classes are empty: no edit")
	require.Len(t, res.Goldens, 1)
	assert.Equal(t, live.Spec, res.Goldens[0].Spec, "the live spec is reproduced as it is, so applying patches nothing")
	assert.Equal(t, NewGolden(entryAt(Compile(v), 0)).ObjectMeta, res.Goldens[0].ObjectMeta, "the metadata is the catalog's")
}

func TestRenderReproducesFrozenClass(t *testing.T) {
	live := liveDV(idA, urlA, "6Gi", "")
	snap := state.NewSnapshot(cluster([]cdiv1.DataVolume{live}, []corev1.PersistentVolumeClaim{livePVC(idA, "replicated", "6Gi", "")}))
	res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), snap)
	require.NoError(t, err, "an entry naming the class a classless golden is bound on is no edit")
	assert.Nil(t, res.Goldens[0].Spec.Storage.StorageClassName, "and the golden's empty class stays empty")
}

func TestRenderPVCOnlyGolden(t *testing.T) {
	p := livePVC(idA, "replicated", "6500Mi", urlA)
	res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(cluster(nil, []corev1.PersistentVolumeClaim{p})))
	require.NoError(t, err, "a PVC-only golden's size is not compared: CDI may have inflated it")
	require.Len(t, res.Goldens, 1)
	q := res.Goldens[0].Spec.Storage.Resources.Requests[corev1.ResourceStorage]
	assert.Equal(t, 0, q.Cmp(resource.MustParse("6500Mi")), "rendered with the PVC's size")
	assert.Equal(t, "replicated", *res.Goldens[0].Spec.Storage.StorageClassName, "and the PVC's class")
	assert.Equal(t, urlA, res.Goldens[0].Spec.Source.HTTP.URL)
}

func TestRenderUnobserved(t *testing.T) {
	res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), nil)
	require.NoError(t, err, "offline, nothing can be proven edited")
	require.Len(t, res.Goldens, 1, "and the entry renders from its values")
	assert.Equal(t, NewGolden(entryAt(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), 0)), res.Goldens[0])
	var kinds []string
	for _, w := range res.Warnings {
		assert.Equal(t, fixtures.Finding{Reason: guard.StateUnverified, Field: "images"}, fixtures.Finding{Reason: w.Reason, Field: w.Field}, "one StateUnverified per unknown kind")
		kinds = append(kinds, w.Kind)
	}
	assert.Equal(t, []string{"StorageClass", "PersistentVolumeClaim", "DataVolume", "StorageProfile", "CDIConfig"}, kinds,
		"each warning names the kind it could not read: the goldens', and what says whether CDI renders one")
	for i, word := range []string{"StorageClasses", "PersistentVolumeClaims", "DataVolumes", "StorageProfiles", "CDIConfigs"} {
		assert.Contains(t, res.Warnings[i].Detail, word)
	}
}

func TestRenderObservedHasNoWarning(t *testing.T) {
	res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(cluster(nil, nil)))
	require.NoError(t, err)
	assert.Empty(t, res.Warnings, "neighbour of TestRenderUnobserved: a fully observed cluster warns nothing")
}

func TestRenderUnmanaged(t *testing.T) {
	gone := liveDV(idB, naming.ImageURL(factory, idB, v1136), "6Gi", "replicated")
	keep := liveDV(idA, urlA, "6Gi", "replicated")
	res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(cluster([]cdiv1.DataVolume{keep, gone}, nil)))
	require.NoError(t, err)
	assert.Equal(t, []string{goldenB}, res.Unmanaged, "the golden of a dropped entry is unmanaged; the managed one is not")
}

func TestRenderResultJSON(t *testing.T) {
	v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "7Gi"})
	snap := state.NewSnapshot(cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "replicated")}, nil))
	res, _ := Render(Compile(v), snap)
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	var got map[string][]map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.ElementsMatch(t, []string{"goldens", "unmanaged", "warnings", "refusals"}, keys(got))
	require.Len(t, got["refusals"], 1)
	r := got["refusals"][0]
	assert.Equal(t, "CatalogEntryImmutable", r["reason"])
	assert.Equal(t, "images[0].storage", r["field"])
	assert.True(t, strings.HasPrefix(r["message"].(string), Subject+": "), "the message names the catalog")
	assert.Empty(t, got["goldens"])

	res, _ = Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(cluster(nil, nil)))
	raw, err = json.Marshal(res)
	require.NoError(t, err)
	var ok struct {
		Goldens  []cdiv1.DataVolume `json:"goldens"`
		Refusals []any              `json:"refusals"`
	}
	require.NoError(t, json.Unmarshal(raw, &ok))
	require.Len(t, ok.Goldens, 1)
	assert.Equal(t, res.Goldens[0].Spec, ok.Goldens[0].Spec, "the goldens are DataVolume objects")
	assert.NotNil(t, ok.Refusals, "an empty list is [], not null")
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRenderIsPureAndConcurrent(t *testing.T) {
	live := liveDV(idA, urlA, "6144Mi", "")
	s := cluster([]cdiv1.DataVolume{live, liveDV(idB, urlA, "6Gi", "local")}, []corev1.PersistentVolumeClaim{livePVC(idA, "replicated", "6Gi", urlA)})
	before := s.DataVolumes[0].DeepCopy()
	snap := state.NewSnapshot(s)
	cat := Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}))
	want, _ := Render(cat, snap)

	results := make(chan RenderResult, 8)
	for range 8 {
		go func() {
			res, _ := Render(cat, snap)
			res.Goldens[0].Spec.Storage.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("1Ti")
			results <- res
		}()
	}
	for range 8 {
		got := <-results
		assert.Equal(t, want.Unmanaged, got.Unmanaged)
	}
	assert.Equal(t, before, &s.DataVolumes[0], "rendering, and editing what it returned, leaves the cluster state as it was")
	again, _ := Render(cat, snap)
	assert.Equal(t, want, again, "the same inputs render the same result")
}
