package vmimages_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const linstor = fixtures.ReplicatedProvisioner

func values(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &m))
	return m
}

func classes() []client.Object {
	return []client.Object{
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Expansion(true).Binding(storagev1.VolumeBindingImmediate).Obj(),
		fixtures.StorageClass("local").Provisioner(linstor).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj(),
		fixtures.Profile("replicated", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Profile("local", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(linstor),
		fixtures.CDIConfig(fixtures.DefaultOverhead, "replicated", "local"),
	}
}

func cluster(objs ...client.Object) *state.Snapshot {
	return state.NewSnapshot(fixtures.State(state.AllKinds, append(classes(), objs...)...))
}

// liveGolden is image's golden as the chart made it.
func liveGolden(image, url, size, class string) *cdiv1.DataVolume {
	return fixtures.DataVolume("cozy-public", vmimages.GoldenPrefix+image).HTTP(url).Size(size).Class(class).Phase(cdiv1.Succeeded).Obj()
}

func f(r guard.Reason, field string) fixtures.Finding {
	return fixtures.Finding{Reason: r, Field: field}
}

// TestChartRules holds every rule of the vm-default-images chart, each
// triggered and just clear of it, rendered against a cluster with
// replicated (the default) and local.
func TestChartRules(t *testing.T) {
	type golden struct{ name, url, size, class string }
	cases := map[string]struct {
		reason  string
		values  string
		goldens []golden
		refused []fixtures.Finding
		warns   []fixtures.Finding
	}{
		"one image": {reason: "storage 5Gi, the global class replicated", values: "images: [{name: ubuntu, url: 'https://e.example/u.img'}]",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "5Gi", "replicated"}}},
		"storage": {reason: "the entry's size", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "20Gi", "replicated"}}},
		"storage empty": {reason: "Helm's default: \"\" is 5Gi", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: ''}]",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "5Gi", "replicated"}}},
		"storage number": {reason: "a whole number of bytes", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 21474836480}]",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "20Gi", "replicated"}}},
		"storage bad": {reason: "no quantity", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: lots}]",
			refused: []fixtures.Finding{f(guard.InvalidQuantity, "images[0].storage")}},
		"storage negative": {reason: "no positive size", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: -5Gi}]",
			refused: []fixtures.Finding{f(guard.InvalidQuantity, "images[0].storage")}},
		"storage under 1MiB": {reason: "CDI's webhook rejects it", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 1Ki}]",
			refused: []fixtures.Finding{f(guard.DiskUnrenderable, "images[0].storage")}},
		"entry class": {reason: "the entry's class wins", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storageClass: local}]",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "5Gi", "local"}}},
		"global class": {reason: "else the global one", values: "{storageClass: local, images: [{name: ubuntu, url: 'https://e.example/u.img'}]}",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "5Gi", "local"}}},
		"global class empty": {reason: "else none: the cluster default", values: "{storageClass: '', images: [{name: ubuntu, url: 'https://e.example/u.img'}]}",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "5Gi", ""}}},
		"class missing": {reason: "CDI never renders the golden", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storageClass: fast}]",
			refused: []fixtures.Finding{f(guard.StorageClassNotFound, "images[0].storageClass")}},
		"global class missing": {reason: "at the global field the entry inherits", values: "{storageClass: fast, images: [{name: ubuntu, url: 'https://e.example/u.img'}]}",
			refused: []fixtures.Finding{f(guard.StorageClassNotFound, "storageClass")}},
		"no name": {reason: "the chart's required fails", values: "images: [{url: 'https://e.example/u.img'}]",
			refused: []fixtures.Finding{f(guard.InvalidValue, "images[0].name")}},
		"name no DNS name": {reason: "vm-default-images-Ubuntu is no object name", values: "images: [{name: Ubuntu, url: 'https://e.example/u.img'}]",
			refused: []fixtures.Finding{f(guard.InvalidValue, "images[0].name")}},
		"no url": {reason: "the chart's required fails", values: "images: [{name: ubuntu}]",
			refused: []fixtures.Finding{f(guard.InvalidValue, "images[0].url")}},
		"url not http": {reason: "CDI's HTTP import reads http and https", values: "images: [{name: ubuntu, url: 'ftp://e.example/u.img'}]",
			refused: []fixtures.Finding{f(guard.InvalidValue, "images[0].url")}},
		"duplicate": {reason: "one name, one golden: at the later entry", values: "images: [{name: ubuntu, url: 'https://e.example/u.img'}, {name: ubuntu, url: 'https://e.example/v.img'}]",
			refused: []fixtures.Finding{f(guard.DuplicateCatalogEntry, "images[1]")}},
		"two images": {reason: "neighbour: two names", values: "images: [{name: ubuntu, url: 'https://e.example/u.img'}, {name: debian, url: 'https://e.example/d.img'}]",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "5Gi", "replicated"}, {"vm-default-images-debian", "https://e.example/d.img", "5Gi", "replicated"}}},
		"entry not a map": {reason: "the chart reads .name of it", values: "images: [ubuntu]",
			refused: []fixtures.Finding{f(guard.InvalidValue, "images[0]")}},
		"unknown key": {reason: "a key the chart does not read", values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storageclass: local}]",
			goldens: []golden{{"vm-default-images-ubuntu", "https://e.example/u.img", "5Gi", "replicated"}},
			warns:   []fixtures.Finding{f(guard.UnknownField, "images[0].storageclass")}},
		"empty list": {reason: "an explicit [] is none", values: "images: []"},
		"no list": {reason: "the shipped list, which the library does not carry", values: "storageClass: replicated",
			warns: []fixtures.Finding{f(guard.StateUnverified, "images")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := vmimages.Render(vmimages.Decode(values(t, tc.values)), cluster())
			assert.Equal(t, tc.refused, fixtures.Of(res.Refusals), tc.reason)
			assert.Equal(t, len(tc.refused) > 0, err != nil)
			for _, w := range tc.warns {
				assert.Contains(t, fixtures.Warned(res.Warnings), w, tc.reason)
			}
			if len(tc.refused) > 0 {
				assert.Empty(t, res.Goldens, "a refused catalog renders nothing")
				return
			}
			var got []golden
			for _, dv := range res.Goldens {
				assert.Equal(t, "cozy-public", dv.Namespace)
				assert.Equal(t, "true", dv.Annotations["cdi.kubevirt.io/storage.bind.immediate.requested"])
				assert.Equal(t, "true", dv.Annotations["cdi.kubevirt.io/storage.usePopulator"])
				assert.Equal(t, cdiv1.DataVolumeKubeVirt, dv.Spec.ContentType)
				q := dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
				class := ""
				if c := dv.Spec.Storage.StorageClassName; c != nil {
					class = *c
				}
				got = append(got, golden{dv.Name, dv.Spec.Source.HTTP.URL, q.String(), class})
			}
			require.Len(t, got, len(tc.goldens), tc.reason)
			for i, g := range tc.goldens {
				// Sizes compare as quantities: 21474836480 is 20Gi.
				want := resource.MustParse(g.size)
				assert.Zero(t, want.Cmp(resource.MustParse(got[i].size)), "%s is not %s", got[i].size, g.size)
				g.size = got[i].size
				assert.Equal(t, g, got[i], tc.reason)
			}
		})
	}
}

// TestGoldenDescribesItself: os, architecture and description annotate the
// golden as the chart writes them, each only when set.
func TestGoldenDescribesItself(t *testing.T) {
	c := vmimages.Decode(values(t, `
images:
  - name: ubuntu-24.04
    url: https://e.example/u.img
    os: {family: Linux, name: Ubuntu, version: "24.04"}
    architecture: amd64
`))
	dv, ok := c.Golden("ubuntu-24.04")
	require.True(t, ok)
	assert.Equal(t, map[string]string{
		"vm-default-images.cozystack.io/name":              "ubuntu-24.04",
		"vm-default-images.cozystack.io/os-family":         "Linux",
		"vm-default-images.cozystack.io/os-name":           "Ubuntu",
		"vm-default-images.cozystack.io/os-version":        "24.04",
		"vm-default-images.cozystack.io/architecture":      "amd64",
		"cdi.kubevirt.io/storage.bind.immediate.requested": "true",
		"cdi.kubevirt.io/storage.usePopulator":             "true",
	}, dv.Annotations)
	_, ok = c.Golden("debian")
	assert.False(t, ok, "neighbour: an image the catalog does not have")
	_, ok = vmimages.Decode(values(t, "images: [{name: ubuntu}]")).Golden("ubuntu")
	assert.False(t, ok, "an entry without url renders no golden")
}

// TestEntryImmutable: the chart re-renders every golden's spec, and CDI
// refuses a change to it, so an entry that differs from its live golden
// is refused, one refusal per field; an equal one, with its size written
// another way, is not.
func TestEntryImmutable(t *testing.T) {
	snap := cluster(liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"))
	for name, tc := range map[string]struct {
		values  string
		refused []fixtures.Finding
	}{
		"unchanged":        {values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20480Mi}]"},
		"class by default": {values: "{storageClass: '', images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]}"},
		"url":              {values: "images: [{name: ubuntu, url: 'https://e.example/v.img', storage: 20Gi}]", refused: []fixtures.Finding{f(guard.CatalogEntryImmutable, "images[0].url")}},
		"storage":          {values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 30Gi}]", refused: []fixtures.Finding{f(guard.CatalogEntryImmutable, "images[0].storage")}},
		"class":            {values: "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi, storageClass: local}]", refused: []fixtures.Finding{f(guard.CatalogEntryImmutable, "images[0].storageClass")}},
		"all three":        {values: "images: [{name: ubuntu, url: 'https://e.example/v.img', storage: 30Gi, storageClass: local}]", refused: []fixtures.Finding{f(guard.CatalogEntryImmutable, "images[0].url"), f(guard.CatalogEntryImmutable, "images[0].storage"), f(guard.CatalogEntryImmutable, "images[0].storageClass")}},
	} {
		t.Run(name, func(t *testing.T) {
			res, _ := vmimages.Render(vmimages.Decode(values(t, tc.values)), snap)
			assert.Equal(t, tc.refused, fixtures.Of(res.Refusals))
		})
	}
}

// vmDisk is the DataVolume a VMDisk of image renders.
func vmDisk(namespace, name, image string) *cdiv1.DataVolume {
	return fixtures.DataVolume(namespace, "vm-disk-"+name).ClonesPVC("cozy-public", vmimages.GoldenPrefix+image).Size("20Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj()
}

// TestConsumers: a vm-disk that clones an image is its consumer, in any
// namespace; one that clones another image is not.
func TestConsumers(t *testing.T) {
	snap := cluster(liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"),
		vmDisk("tenant-a", "data", "ubuntu"), vmDisk("tenant-b", "root", "ubuntu"), vmDisk("tenant-a", "other", "debian"))
	res := vmimages.Consumers("ubuntu", snap)
	var names []string
	for _, c := range res.Consumers {
		names = append(names, c.Kind+" "+c.Namespace+"/"+c.Name)
	}
	assert.Equal(t, []string{"DataVolume tenant-a/vm-disk-data", "DataVolume tenant-b/vm-disk-root"}, names)
	assert.Empty(t, res.Warnings)

	// DataVolumes unread, the goldens themselves are unknown: the render
	// says so whatever it drops; the other kinds
	// that may clone a golden are asked here.
	for _, k := range []state.Kind{state.PersistentVolumeClaim, state.VirtualMachine, state.DataSource, state.HelmRelease} {
		unseen := vmimages.Consumers("ubuntu", state.NewSnapshot(fixtures.State(state.AllKinds&^k, vmDisk("tenant-a", "data", "ubuntu"))))
		assert.Equal(t, []fixtures.Finding{f(guard.StateUnverified, "consumers")}, fixtures.Warned(unseen.Warnings),
			"%s unread may hide a consumer", k)
		assert.Equal(t, []string{k.String()}, unseen.BlastRadius.Unobserved)
	}
	// Just clear of it: no pool or template clones an image's golden.
	pools := vmimages.Consumers("ubuntu", state.NewSnapshot(fixtures.State(state.AllKinds&^(state.KubevirtMachineTemplate|state.KubernetesNodes), vmDisk("tenant-a", "data", "ubuntu"))))
	assert.Empty(t, pools.Warnings, "KubevirtMachineTemplates and KubernetesNodes unread hide no consumer of an image")
	assert.Empty(t, pools.BlastRadius.Unobserved)
	assert.Len(t, pools.Consumers, 1)
}

// TestUnobservedSaysThePlural: every warning of a kind not observed names
// it in the plural as Kubernetes spells it, for every kind.
func TestUnobservedSaysThePlural(t *testing.T) {
	cat := vmimages.Decode(values(t, "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]"))
	objs := append(classes(), liveGolden("debian", "https://e.example/d.img", "20Gi", "replicated"), vmDisk("tenant-a", "data", "debian"))
	for _, k := range state.AllKinds.Each() {
		snap := state.NewSnapshot(fixtures.State(state.AllKinds&^k, objs...))
		res, _ := vmimages.Render(cat, snap)
		ws := append(append(res.Warnings, vmimages.Prune(cat, snap).Warnings...), vmimages.Consumers("debian", snap).Warnings...)
		for _, w := range ws {
			assert.NotContains(t, w.String(), k.Plural()+"s", "%s unobserved", k)
			if w.Kind == k.String() && strings.Contains(w.String(), "were not observed") {
				assert.Contains(t, w.String(), k.Plural()+" were not observed", "%s unobserved", k)
			}
		}
	}
}

// TestPrune: a golden no entry names is safe to delete only when nothing
// clones it and every consumer kind was observed in every namespace.
func TestPrune(t *testing.T) {
	cat := vmimages.Decode(values(t, "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]"))
	objs := []client.Object{liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"),
		liveGolden("centos", "https://e.example/c.img", "20Gi", "replicated"),
		liveGolden("debian", "https://e.example/d.img", "20Gi", "replicated"),
		vmDisk("tenant-a", "data", "debian")}

	rep := vmimages.Prune(cat, cluster(objs...))
	assert.Equal(t, []string{"vm-default-images-centos"}, rep.SafeToDelete)
	require.Len(t, rep.Kept, 1)
	assert.Equal(t, "vm-default-images-debian", rep.Kept[0].Name)
	assert.Empty(t, rep.Warnings)

	for _, k := range []state.Kind{state.DataVolume, state.PersistentVolumeClaim, state.VirtualMachine, state.DataSource, state.HelmRelease} {
		rep := vmimages.Prune(cat, state.NewSnapshot(fixtures.State(state.AllKinds&^k, append(classes(), objs...)...)))
		assert.Empty(t, rep.SafeToDelete, "%s unobserved: nothing is safe to delete", k)
		assert.Contains(t, fixtures.Warned(rep.Warnings), f(guard.StateUnverified, "safeToDelete"), k.String())
	}
	// Just clear of it: a worker pool and its template clone a
	// talos-worker golden, never an image's, so leaving them unread hides
	// no consumer.
	for _, k := range []state.Kind{state.KubevirtMachineTemplate, state.KubernetesNodes, state.KubevirtMachineTemplate | state.KubernetesNodes} {
		rep := vmimages.Prune(cat, state.NewSnapshot(fixtures.State(state.AllKinds&^k, append(classes(), objs...)...)))
		assert.Equal(t, []string{"vm-default-images-centos"}, rep.SafeToDelete, "%s unobserved", k)
		assert.Empty(t, rep.Warnings, "%s unobserved", k)
		assert.Empty(t, rep.Kept[0].BlastRadius.Unobserved, "%s unobserved", k)
	}
	scoped := fixtures.State(state.AllKinds, append(classes(), objs...)...)
	scoped.Namespaces = []string{"cozy-public"}
	assert.Empty(t, vmimages.Prune(cat, state.NewSnapshot(scoped)).SafeToDelete, "disks read in cozy-public alone prove nothing of the tenants")

	unknown := vmimages.Prune(vmimages.Decode(values(t, "storageClass: replicated")), cluster(objs...))
	assert.Empty(t, unknown.SafeToDelete, "an unknown catalog manages nothing it can name")
	assert.Len(t, unknown.Warnings, 1)
}

// TestDroppingAClonedImage: the chart keeps no golden, so values that
// drop an image whose golden a vm-disk still clones warn that the upgrade
// deletes it.
func TestDroppingAClonedImage(t *testing.T) {
	snap := cluster(liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"),
		liveGolden("debian", "https://e.example/d.img", "20Gi", "replicated"), vmDisk("tenant-a", "data", "debian"))
	res, err := vmimages.Render(vmimages.Decode(values(t, "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]")), snap)
	require.NoError(t, err)
	assert.Equal(t, []string{"vm-default-images-debian"}, res.Unmanaged)
	assert.Equal(t, []fixtures.Finding{f(guard.GoldenUnavailable, "images")}, fixtures.Warned(res.Warnings))
	assert.Contains(t, res.Warnings[0].String(), "and 1 object clones it (DataVolume tenant-a/vm-disk-data)")
	two := cluster(liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"),
		liveGolden("debian", "https://e.example/d.img", "20Gi", "replicated"), vmDisk("tenant-a", "data", "debian"), vmDisk("tenant-b", "root", "debian"))
	res, _ = vmimages.Render(vmimages.Decode(values(t, "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]")), two)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0].String(), "and 2 objects clone it (DataVolume tenant-a/vm-disk-data, DataVolume tenant-b/vm-disk-root)")

	res, _ = vmimages.Render(vmimages.Decode(values(t, `images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}, {name: debian, url: 'https://e.example/d.img', storage: 20Gi}]`)), snap)
	assert.Empty(t, res.Warnings, "neighbour: kept, nothing to warn of")
	assert.Empty(t, res.Unmanaged)
}

// diskRelease is the HelmRelease cozystack-api makes for a VMDisk, with
// its values.
func diskRelease(namespace, name string, labels map[string]string, values map[string]any) unstructured.Unstructured {
	hr := unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"values": values}}}
	hr.SetAPIVersion("helm.toolkit.fluxcd.io/v2")
	hr.SetKind("HelmRelease")
	hr.SetNamespace(namespace)
	hr.SetName(name)
	hr.SetLabels(labels)
	return hr
}

// TestConsumersBeforeTheirDisk: a VMDisk whose DataVolume does not exist
// yet clones its image once the chart renders it; its vm-disk release
// (cozystack-api's storage of every VMDisk) is the image's consumer, and
// prune keeps the golden. A release of another chart, or of a disk that
// clones no image, is none.
func TestConsumersBeforeTheirDisk(t *testing.T) {
	vmDiskLabels := map[string]string{"apps.cozystack.io/application.kind": "VMDisk", "apps.cozystack.io/application.group": "apps.cozystack.io"}
	image := map[string]any{"source": map[string]any{"image": map[string]any{"name": "debian"}}, "storage": "20Gi"}
	st := fixtures.State(state.AllKinds, append(classes(),
		liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"),
		liveGolden("debian", "https://e.example/d.img", "20Gi", "replicated"))...)
	st.HelmReleases = []unstructured.Unstructured{
		diskRelease("tenant-a", "vm-disk-new", vmDiskLabels, image),
		diskRelease("tenant-b", "vm-disk-unlabelled", nil, image),
		diskRelease("tenant-a", "vm-disk-imported", vmDiskLabels, map[string]any{"source": map[string]any{"http": map[string]any{"url": "https://e.example/x.img"}}}),
		diskRelease("tenant-a", "vm-disk-db", map[string]string{"apps.cozystack.io/application.kind": "Postgres"}, image),
		diskRelease("tenant-a", "debian", vmDiskLabels, image),
	}
	snap := state.NewSnapshot(st)

	res := vmimages.Consumers("debian", snap)
	var names []string
	for _, c := range res.Consumers {
		names = append(names, c.Kind+" "+c.Namespace+"/"+c.Name+" pool="+c.Pool)
	}
	assert.Equal(t, []string{"HelmRelease tenant-a/vm-disk-new pool=", "HelmRelease tenant-b/vm-disk-unlabelled pool="}, names)
	assert.Empty(t, res.Warnings)
	assert.Zero(t, res.BlastRadius.Pools, "a VM disk is no pool")

	cat := vmimages.Decode(values(t, "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]"))
	rep := vmimages.Prune(cat, snap)
	assert.Empty(t, rep.SafeToDelete, "a golden a VMDisk will clone is never safe to delete")
	require.Len(t, rep.Kept, 1)
	assert.Equal(t, "vm-default-images-debian", rep.Kept[0].Name)

	// Just clear of it: the same releases cloning no image leave the
	// golden safe to delete.
	st.HelmReleases = st.HelmReleases[2:]
	assert.Equal(t, []string{"vm-default-images-debian"}, vmimages.Prune(cat, state.NewSnapshot(st)).SafeToDelete)

	// A release whose values come from elsewhere may name any image:
	// nothing is safe to delete.
	hidden := diskRelease("tenant-a", "vm-disk-hidden", vmDiskLabels, nil)
	hidden.Object["spec"].(map[string]any)["valuesFrom"] = []any{map[string]any{"kind": "ConfigMap", "name": "disk-values"}}
	st.HelmReleases = append(st.HelmReleases, hidden)
	rep = vmimages.Prune(cat, state.NewSnapshot(st))
	assert.Empty(t, rep.SafeToDelete)
	assert.Contains(t, fixtures.Warned(rep.Warnings), f(guard.StateUnverified, "safeToDelete"))
}

// TestNeedsAreEnough: Consumers and Prune, given a cluster read with
// exactly what they say they need, see all they would see in the whole
// cluster and say nothing is unverified; the read asks for no worker pool
// nor template, which clone no image's golden.
func TestNeedsAreEnough(t *testing.T) {
	cat := vmimages.Decode(values(t, "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]"))
	objs := append(classes(), liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"),
		liveGolden("centos", "https://e.example/c.img", "20Gi", "replicated"),
		liveGolden("debian", "https://e.example/d.img", "20Gi", "replicated"), vmDisk("tenant-a", "data", "debian"))
	read := func(req state.Request) *state.Snapshot {
		st, err := controllerruntime.New(fixtures.ControllerRuntime(interceptor.Funcs{}, objs...)).Read(context.Background(), req)
		require.NoError(t, err)
		return state.NewSnapshot(st)
	}
	for _, req := range []state.Request{vmimages.ConsumersNeeds(), vmimages.PruneNeeds()} {
		for _, l := range req.Lists {
			assert.NotContains(t, []state.Kind{state.KubevirtMachineTemplate, state.KubernetesNodes}, l.Kind)
		}
	}
	got := vmimages.Consumers("debian", read(vmimages.ConsumersNeeds()))
	assert.Empty(t, got.Warnings)
	assert.Len(t, got.Consumers, 1)
	rep := vmimages.Prune(cat, read(vmimages.PruneNeeds()))
	assert.Empty(t, rep.Warnings)
	assert.Equal(t, []string{"vm-default-images-centos"}, rep.SafeToDelete)

	// Just clear of it: the goldens alone are not enough.
	short := vmimages.Prune(cat, read(catalog.RenderNeeds()))
	assert.Empty(t, short.SafeToDelete)
	assert.NotEmpty(t, short.Warnings)
}

// TestDroppedImageWithClonesUnread: values that drop an image whose
// golden lives, over a state that did not read a kind that may clone it,
// render with a StateUnverified warning per such kind (the clones the
// GoldenUnavailable warning would name may be missing); over a state that
// read them all, none.
func TestDroppedImageWithClonesUnread(t *testing.T) {
	objs := append(classes(), liveGolden("ubuntu", "https://e.example/u.img", "20Gi", "replicated"),
		liveGolden("debian", "https://e.example/d.img", "20Gi", "replicated"))
	cat := vmimages.Decode(values(t, "images: [{name: ubuntu, url: 'https://e.example/u.img', storage: 20Gi}]"))
	// DataVolumes unread, the goldens themselves are unknown: the render
	// says so whatever it drops; the other kinds
	// that may clone a golden are asked here.
	for _, k := range []state.Kind{state.PersistentVolumeClaim, state.VirtualMachine, state.DataSource, state.HelmRelease} {
		res, err := vmimages.Render(cat, state.NewSnapshot(fixtures.State(state.AllKinds&^k, objs...)))
		require.NoError(t, err)
		assert.Equal(t, []string{"vm-default-images-debian"}, res.Unmanaged, "%s unread", k)
		require.Len(t, res.Warnings, 1, "%s unread: %v", k, res.Warnings)
		assert.Equal(t, []fixtures.Finding{f(guard.StateUnverified, "images")}, fixtures.Warned(res.Warnings), "%s unread", k)
		assert.Equal(t, k.String(), res.Warnings[0].Kind, "the warning names the kind not read")
	}
	res, err := vmimages.Render(cat, state.NewSnapshot(fixtures.State(state.AllKinds, objs...)))
	require.NoError(t, err)
	assert.Empty(t, res.Warnings, "neighbour: every kind that may clone read, nothing clones the dropped golden")
	assert.Equal(t, []string{"vm-default-images-debian"}, res.Unmanaged)
}
