package vmdisk_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// TestChartRules holds every rule of the vm-disk chart's DataVolume, each
// triggered and just clear of it, planned against a healthy cluster (the
// golden imported on replicated, the source disk vm-disk-base on
// replicated).
func TestChartRules(t *testing.T) {
	type want struct {
		source  string
		clones  string
		size    string // the request, as a quantity
		class   *string
		http    string
		upload  bool
		blank   bool
		ann     map[string]string // annotations the DataVolume must carry
		refused []fixtures.Finding
		warns   []fixtures.Finding // warnings it must carry, among others
	}
	f := func(r guard.Reason, field string) fixtures.Finding { return fixtures.Finding{Reason: r, Field: field} }
	cases := map[string]struct {
		reason string
		name   string
		spec   string
		want   want
	}{
		"defaults": {reason: "no values: a blank disk of 5Gi on replicated, not optical",
			spec: "", want: want{source: "blank", blank: true, size: "5Gi", class: ptr("replicated"), ann: map[string]string{"vm-disk.cozystack.io/optical": "false"}}},
		"source {}": {reason: "an empty source is a blank disk", spec: "source: {}",
			want: want{source: "blank", blank: true, size: "5Gi", class: ptr("replicated")}},
		"source null": {reason: "a null source deletes the default: blank", spec: "source: null",
			want: want{source: "blank", blank: true, size: "5Gi", class: ptr("replicated")}},
		"image": {reason: "source.image.name clones the catalog's golden in cozy-public", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi}",
			want: want{source: "image", clones: "cozy-public/vm-default-images-ubuntu", size: "20Gi", class: ptr("replicated")}},
		"image without name": {reason: "the chart's required fails", spec: "source: {image: {}}",
			want: want{source: "image", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.image.name")}}},
		"image name empty": {reason: "required fails on \"\" too", spec: "source: {image: {name: ''}}",
			want: want{source: "image", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.image.name")}}},
		"image name no DNS name": {reason: "vm-default-images-Ubuntu names no PVC, so no golden", spec: "source: {image: {name: Ubuntu}}",
			want: want{source: "image", refused: []fixtures.Finding{f(guard.GoldenNotInCatalog, "spec.source.image.name")}}},
		"image name a number": {reason: "the values schema types the name a string", spec: "source: {image: {name: 22}}",
			want: want{source: "image", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.image.name")}}},
		"image not a map": {reason: "the template reads .name of it", spec: "source: {image: ubuntu}",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.image")}}},
		"disk": {reason: "source.disk.name clones vm-disk-<name> of the same namespace", spec: "{source: {disk: {name: base}}, storage: 20Gi}",
			want: want{source: "disk", clones: tenant + "/vm-disk-base", size: "20Gi", class: ptr("replicated")}},
		"disk without name": {reason: "the chart's required fails", spec: "source: {disk: {}}",
			want: want{source: "disk", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.disk.name")}}},
		"disk clones itself": {reason: "vm-disk-data cloning vm-disk-data never starts", name: "data", spec: "source: {disk: {name: data}}",
			want: want{source: "disk", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.disk.name")}}},
		"http": {reason: "source.http imports its url, no guard", spec: "source: {http: {url: 'https://example.com/x.img'}}",
			want: want{source: "http", http: "https://example.com/x.img", size: "5Gi", class: ptr("replicated")}},
		"http without url": {reason: "the chart's required fails", spec: "source: {http: {}}",
			want: want{source: "http", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.http.url")}}},
		"upload": {reason: "upload: an upload source, bound at once so the upload can start", spec: "source: {upload: {}}",
			want: want{source: "upload", upload: true, size: "5Gi", class: ptr("replicated"), ann: map[string]string{"cdi.kubevirt.io/storage.bind.immediate.requested": ""}}},
		"upload null": {reason: "hasKey holds for a null upload too", spec: "source: {upload: null}",
			want: want{source: "upload", upload: true, size: "5Gi", class: ptr("replicated")}},
		"two sources": {reason: "the chart fails: exactly one source", spec: "source: {image: {name: ubuntu}, http: {url: 'https://example.com/x.img'}}",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.ConflictingImageSource, "spec.source")}}},
		"unknown source": {reason: "a key the chart reads no source from renders an empty source, which CDI rejects", spec: "source: {images: {name: ubuntu}}",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.images")}, warns: []fixtures.Finding{f(guard.UnknownField, "spec.source.images")}}},
		"storage": {reason: "storage is the request", spec: "storage: 10Gi", want: want{source: "blank", blank: true, size: "10Gi", class: ptr("replicated")}},
		"storage number": {reason: "a number is what Helm prints of Flux's float64, read as a quantity", spec: "storage: 21474836480",
			want: want{source: "blank", blank: true, size: "20Gi", class: ptr("replicated")}},
		"storage empty": {reason: "the chart writes no size, which CDI rejects", spec: "storage: ''",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidQuantity, "spec.storage")}}},
		"storage null": {reason: "null deletes the default, and the chart writes no size", spec: "storage: null",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidQuantity, "spec.storage")}}},
		"storage zero": {reason: "no positive size", spec: "storage: '0'",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidQuantity, "spec.storage")}}},
		"storage negative": {reason: "the schema's pattern takes a sign; no volume has a negative size", spec: "storage: -1Gi",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidQuantity, "spec.storage")}}},
		"storage off pattern": {reason: "the values schema's pattern refuses it", spec: "storage: 10 Gi",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidQuantity, "spec.storage")}}},
		"storage unbounded": {reason: "a magnitude no volume has is refused before anything compares it", spec: "storage: 3e4444444444444",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidQuantity, "spec.storage")}}},
		"storage fraction": {reason: "the values schema's integer refuses 1.5", spec: "storage: 1.5",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.storage")}}},
		"storageClass": {reason: "an explicit class is written", spec: "storageClass: local",
			want: want{source: "blank", blank: true, size: "5Gi", class: ptr("local")}},
		"storageClass empty": {reason: "\"\": the chart writes no class, the cluster default", spec: "storageClass: ''",
			want: want{source: "blank", blank: true, size: "5Gi"}},
		"storageClass null": {reason: "null: no class either", spec: "storageClass: null",
			want: want{source: "blank", blank: true, size: "5Gi"}},
		"storageClass number": {reason: "the values schema types it a string", spec: "storageClass: 5",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.storageClass")}}},
		"optical": {reason: "optical is the annotation", spec: "optical: true",
			want: want{source: "blank", blank: true, size: "5Gi", class: ptr("replicated"), ann: map[string]string{"vm-disk.cozystack.io/optical": "true"}}},
		"optical string": {reason: "the values schema types it a boolean", spec: "optical: 'yes'",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.optical")}}},
		"unknown key": {reason: "a key the chart does not read warns, nearest key named", spec: "storageclass: local",
			want: want{source: "blank", blank: true, size: "5Gi", class: ptr("replicated"), warns: []fixtures.Finding{f(guard.UnknownField, "spec.storageclass")}}},
		"image name null": {reason: "Helm deletes a null key, and the schema requires name", spec: "source: {image: {name: null}}",
			want: want{source: "image", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.image.name")}}},
		"image at the default size": {reason: "the chart's 5Gi from the 20Gi image: CDI's clone fails for good", spec: "source: {image: {name: ubuntu}}",
			want: want{source: "image", refused: []fixtures.Finding{f(guard.DiskSmallerThanGolden, "spec.storage")}}},
		"image on the cluster default": {reason: "\"\" is CDI's default, replicated, the golden's", spec: "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: ''}",
			want: want{source: "image", clones: "cozy-public/vm-default-images-ubuntu", size: "20Gi"}},
		"disk at the default size": {reason: "the chart's 5Gi from a 20Gi Block disk: CDI never creates the PVC", spec: "source: {disk: {name: base}}",
			want: want{source: "disk", refused: []fixtures.Finding{f(guard.DiskSmallerThanGolden, "spec.storage")}}},
		"disk name a number": {reason: "the values schema types the name a string", spec: "source: {disk: {name: 7}}",
			want: want{source: "disk", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.disk.name")}}},
		"disk not a map": {reason: "the values schema types it an object", spec: "source: {disk: base}",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.disk")}}},
		"http url a number": {reason: "the values schema types the url a string", spec: "source: {http: {url: 7}}",
			want: want{source: "http", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.http.url")}}},
		"upload not a map": {reason: "the values schema types it an object", spec: "source: {upload: yes}",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source.upload")}}},
		"source not a map": {reason: "the values schema types it an object", spec: "source: ubuntu",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source")}}},
		"storage a boolean": {reason: "the values schema types it a quantity", spec: "storage: true",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "spec.storage")}}},
		"optical null": {reason: "Helm prints nothing of a deleted value", spec: "optical: null",
			want: want{source: "blank", blank: true, size: "5Gi", class: ptr("replicated"), ann: map[string]string{"vm-disk.cozystack.io/optical": ""}}},
		"name at Helm's limit": {reason: "vm-disk- and 45 characters is 53", name: "a2345678901234567890123456789012345678901234x",
			want: want{source: "blank", blank: true, size: "5Gi", class: ptr("replicated")}},
		"name past Helm's limit": {reason: "46 characters make a release name of 54", name: "a2345678901234567890123456789012345678901234xy",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "metadata.name")}}},
		"name not a label": {reason: "the release name must be a DNS-1123 label", name: "Data",
			want: want{source: "blank", refused: []fixtures.Finding{f(guard.InvalidValue, "metadata.name")}}},
	}
	snap := cluster(append(imageGolden("replicated", cdiv1.Succeeded),
		fixtures.DataVolume(tenant, "vm-disk-base").Size("20Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj(),
		fixtures.PVC(tenant, "vm-disk-base").Class("replicated").Size("20Gi").VolumeMode(corev1.PersistentVolumeBlock).Bound().Obj())...)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := tc.name
			if n == "" {
				n = "data"
			}
			res, err := vmdisk.Plan(disk(t, n, tc.spec), catalogOf(t), snap)
			w := tc.want
			assert.Equal(t, w.refused, refused(res), tc.reason)
			assert.Equal(t, w.source, res.Source, tc.reason)
			for _, wf := range w.warns {
				assert.Contains(t, warned(res), wf, tc.reason)
			}
			if len(w.refused) > 0 {
				require.Error(t, err)
				assert.Equal(t, plan.Refused, res.Outcome)
				assert.Nil(t, res.DataVolume, "a refused plan carries no DataVolume")
				return
			}
			require.NoError(t, err, tc.reason)
			assert.Equal(t, plan.Planned, res.Outcome)
			dv := res.DataVolume
			require.NotNil(t, dv)
			assert.Equal(t, "vm-disk-"+n, dv.Name)
			assert.Equal(t, tenant, dv.Namespace)
			assert.Equal(t, "vm-disk-"+n, dv.Labels["app.kubernetes.io/instance"])
			assert.Equal(t, cdiv1.DataVolumeKubeVirt, dv.Spec.ContentType)
			q := dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
			assert.Zero(t, q.Cmp(resource.MustParse(w.size)), "request %s, want %s", q.String(), w.size)
			assert.Equal(t, w.class, dv.Spec.Storage.StorageClassName, tc.reason)
			assert.Equal(t, w.clones, res.Clones)
			s := dv.Spec.Source
			if w.clones != "" {
				require.NotNil(t, s.PVC)
				assert.Equal(t, w.clones, s.PVC.Namespace+"/"+s.PVC.Name)
			} else {
				assert.Nil(t, s.PVC)
			}
			assert.Equal(t, w.http != "", s.HTTP != nil)
			if w.http != "" {
				assert.Equal(t, w.http, s.HTTP.URL)
			}
			assert.Equal(t, w.upload, s.Upload != nil)
			assert.Equal(t, w.blank, s.Blank != nil)
			_, immediate := dv.Annotations["cdi.kubevirt.io/storage.bind.immediate.requested"]
			assert.Equal(t, w.upload, immediate, "only an upload asks to bind at once")
			for k, v := range w.ann {
				assert.Equal(t, v, dv.Annotations[k], k)
			}
		})
	}
}

// TestHelmReleaseIsTheVMDisk: a vm-disk HelmRelease's values plan as the
// VMDisk it serves, its findings under spec.values.
func TestHelmReleaseIsTheVMDisk(t *testing.T) {
	hr := map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"namespace": tenant, "name": "vm-disk-data",
			"labels": map[string]any{"apps.cozystack.io/application.kind": "VMDisk"}},
		"spec": map[string]any{"values": values(t, "{source: {image: {name: ubuntu}}, storage: 20Gi}")}}
	d, err := vmdisk.Decode(hr)
	require.NoError(t, err)
	assert.Equal(t, "data", d.Name)
	fromHR, err := vmdisk.Plan(d, catalogOf(t), healthy())
	require.NoError(t, err)
	fromVMDisk, err := vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi}"), catalogOf(t), healthy())
	require.NoError(t, err)
	assert.Equal(t, fromVMDisk.DataVolume, fromHR.DataVolume)

	hr["spec"] = map[string]any{"values": values(t, "{source: {image: {name: ubuntu}}, storage: 20Gi, storageClass: local}")}
	d, err = vmdisk.Decode(hr)
	require.NoError(t, err)
	res, _ := vmdisk.Plan(d, catalogOf(t), healthy())
	assert.Equal(t, []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "spec.values.storageClass"}}, refused(res))
}

// TestDecodeRefusesOtherObjects: Decode fails only on an object that is
// not a VMDisk nor a vm-disk HelmRelease.
func TestDecodeRefusesOtherObjects(t *testing.T) {
	hr := func(name string, labels map[string]any) map[string]any {
		return map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"namespace": tenant, "name": name, "labels": labels}}
	}
	for name, tc := range map[string]struct {
		obj map[string]any
		ok  bool
	}{
		"a VMDisk":                    {obj: map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk"}, ok: true},
		"a VMDisk of another version": {obj: map[string]any{"apiVersion": "apps.cozystack.io/v1beta1", "kind": "VMDisk"}},
		"a KubernetesNodes":           {obj: map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "KubernetesNodes"}},
		"a vm-disk release":           {obj: hr("vm-disk-data", nil), ok: true},
		"a labelled vm-disk release":  {obj: hr("vm-disk-data", map[string]any{"apps.cozystack.io/application.kind": "VMDisk"}), ok: true},
		"another app's release":       {obj: hr("vm-disk-data", map[string]any{"apps.cozystack.io/application.kind": "VMInstance"})},
		"a release of another prefix": {obj: hr("vm-instance-data", nil)},
		"nothing":                     {obj: map[string]any{}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := vmdisk.Decode(tc.obj)
			assert.Equal(t, tc.ok, err == nil, "%v", err)
		})
	}
}

// TestOnlyACreateIsPlanned: once vm-disk-<name> exists the chart keeps
// its spec, so the template's rules no longer apply; the values schema's
// still do. While DataVolumes were not observed, the plan is a create's
// and says so.
func TestOnlyACreateIsPlanned(t *testing.T) {
	live := fixtures.DataVolume(tenant, "vm-disk-data").ClonesPVC("cozy-public", goldenN).Size("20Gi").Class("local").Phase(cdiv1.Succeeded).Obj()
	snap := cluster(append(imageGolden("replicated", cdiv1.Succeeded), live)...)

	res, err := vmdisk.Plan(disk(t, "data", "{source: {image: {name: ubuntu}, http: {url: 'https://x.example/y'}}, storageClass: local}"), catalogOf(t), snap)
	require.NoError(t, err, "two sources and a class mismatch refuse only a create")
	assert.True(t, res.Exists)
	assert.Equal(t, live.Spec, res.DataVolume.Spec, "the live spec, kept")

	res, _ = vmdisk.Plan(disk(t, "data", "storage: 10 Gi"), catalogOf(t), snap)
	assert.Equal(t, []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "spec.storage"}}, refused(res), "the values schema holds on every apply")
	res, _ = vmdisk.Plan(disk(t, "data", "source: {image: {}}"), catalogOf(t), snap)
	assert.Equal(t, []fixtures.Finding{{Reason: guard.InvalidValue, Field: "spec.source.image.name"}}, refused(res), "the schema requires the name on every apply")
	res, err = vmdisk.Plan(disk(t, "data", "source: {image: {name: ''}}"), catalogOf(t), snap)
	assert.NoError(t, err, "neighbour: \"\" passes the schema, and only the create's template fails on it")

	neighbour, err := vmdisk.Plan(disk(t, "other", "{source: {image: {name: ubuntu}}, storageClass: local}"), catalogOf(t), snap)
	assert.Error(t, err, "neighbour: another VMDisk of the namespace is a create")
	assert.False(t, neighbour.Exists)

	unseen := state.NewSnapshot(fixtures.State(state.AllKinds&^state.DataVolume, append(classes(), imageGolden("replicated", cdiv1.Succeeded)...)...))
	res, _ = vmdisk.Plan(disk(t, "data", "source: {upload: {}}"), catalogOf(t), unseen)
	assert.False(t, res.Exists)
	assert.Contains(t, warned(res), fixtures.Finding{Reason: guard.StateUnverified, Field: "spec"})
}
