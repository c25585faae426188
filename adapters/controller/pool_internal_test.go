package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

func release(spec map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	o.SetGroupVersionKind(helmReleaseGVK)
	o.SetNamespace("tenant-demo")
	o.SetName("kubernetes-nodes-demo-md0")
	return o
}

func TestPoolOfRelease(t *testing.T) {
	cozystack := map[string]any{"kind": "ExternalArtifact", "namespace": "cozy-system", "name": "cozystack-kubernetes-nodes-application-kubevirt-kubernetes-nodes"}
	values := map[string]any{"cluster": "demo", "_cluster": map[string]any{"injected": true}}
	cases := map[string]struct {
		spec      map[string]any
		labels    bool
		ok        bool
		namespace string
		name      string
	}{
		"ChartRef":          {spec: map[string]any{"chartRef": cozystack, "values": values}, ok: true, namespace: "tenant-demo", name: "demo-md0"},
		"ChartName":         {spec: map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "kubernetes-nodes"}}, "values": values}, ok: true, namespace: "tenant-demo", name: "demo-md0"},
		"ReleaseName":       {spec: map[string]any{"chartRef": cozystack, "releaseName": "kubernetes-nodes-other-md1", "values": values}, ok: true, namespace: "tenant-demo", name: "other-md1"},
		"TargetNamespace":   {spec: map[string]any{"chartRef": cozystack, "targetNamespace": "tenant-x", "releaseName": "kubernetes-nodes-x-md0"}, ok: true, namespace: "tenant-x", name: "x-md0"},
		"OtherChartRef":     {spec: map[string]any{"chartRef": map[string]any{"kind": "ExternalArtifact", "namespace": "cozy-system", "name": "something-else"}}},
		"OtherChart":        {spec: map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "postgres"}}}},
		"RefInOwnNamespace": {spec: map[string]any{"chartRef": map[string]any{"kind": "ExternalArtifact", "name": cozystack["name"]}}},
		// As the consumer count and the webhook recognise a pool: by
		// cozystack-api's labels too, and never one without the prefix.
		"Labels":   {spec: map[string]any{"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "renamed"}}, labels: true, ok: true, namespace: "tenant-demo", name: "demo-md0"},
		"NoPrefix": {spec: map[string]any{"chartRef": cozystack, "releaseName": "demo-md0"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := release(tc.spec)
			if tc.labels {
				obj.SetLabels(map[string]string{"apps.cozystack.io/application.kind": "KubernetesNodes", "apps.cozystack.io/application.group": "apps.cozystack.io"})
			}
			p, ok, err := poolOf(ref{Kind: helmRelease}, obj)
			assert.NoError(t, err)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.namespace, p.Namespace)
				assert.Equal(t, tc.name, p.Name)
			}
		})
	}
}

// An update that leaves what the cache keeps as it was, but for the
// resourceVersion, is no change.
func TestSame(t *testing.T) {
	a := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"}, Provisioner: "p"}
	b := a.DeepCopy()
	b.ResourceVersion = "2"
	assert.True(t, same(a, b))
	b.Provisioner = "q"
	assert.False(t, same(a, b))
	assert.Equal(t, "1", a.ResourceVersion, "compared on copies")
}

// A plan that passed without reading a kind its guards needed is
// unverified, never planned; one that read everything stays planned.
func TestSummarizeUnverified(t *testing.T) {
	pool := plan.DecodePool("tenant-demo", "demo-md0", map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}})
	snap := state.NewSnapshot(&state.State{})
	planned := plan.Result{Outcome: plan.Planned}
	e := summarize(pool, planned, snap)
	assert.Equal(t, []string{"planned", "Planned"}, []string{e.outcome, e.reason})

	planned.Warnings = guard.Warnings{{Reason: guard.StateUnverified, Kind: "StorageClass"}}
	e = summarize(pool, planned, snap)
	assert.Equal(t, []string{"unverified", "Unverified"}, []string{e.outcome, e.reason})

	refused := plan.Result{Outcome: plan.Refused, Refusals: guard.Refusals{{Reason: guard.GoldenNotInCatalog}}, Warnings: planned.Warnings}
	e = summarize(pool, refused, snap)
	assert.Equal(t, []string{"refused", "GoldenNotInCatalog"}, []string{e.outcome, e.reason}, "a refusal wins")
}

// A VM disk's plan rests on its own DataVolume and, for a clone planned
// as a create, its source, its class and the source's, their drivers and
// CDI; an HTTP import, or a disk whose DataVolume exists, on its own
// DataVolume (and the source's, which decides nothing then) alone.
func TestDiskDeps(t *testing.T) {
	decode := func(spec map[string]any) vmdisk.VMDisk {
		d, err := vmdisk.Decode(map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
			"metadata": map[string]any{"namespace": "tenant-demo", "name": "root"}, "spec": spec})
		require.NoError(t, err)
		return d
	}
	const linstor = "linstor.csi.linbit.com"
	golden := fixtures.DataVolume("cozy-public", "vm-default-images-ubuntu").HTTP("https://e.example/u.img").Size("20Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj()
	objs := []client.Object{
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Obj(),
		fixtures.StorageClass("local").Provisioner("local.csi.openebs.io").Obj(),
		golden,
		fixtures.PVC("cozy-public", "vm-default-images-ubuntu").Class("replicated").Size("20Gi").Bound().Obj(),
	}
	snap := state.NewSnapshot(fixtures.State(state.AllKinds, objs...))
	depsOf := func(d vmdisk.VMDisk, snap *state.Snapshot) deps {
		res, _ := vmdisk.Plan(d, nil, snap)
		return diskDeps(d, vmdisk.Needs(d), res, snap)
	}

	clone := depsOf(decode(map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storageClass": "local"}), snap)
	assert.True(t, clone.disk && clone.cluster && clone.image)
	assert.ElementsMatch(t, []string{"tenant-demo/vm-disk-root", "cozy-public/vm-default-images-ubuntu"}, clone.objects)
	assert.ElementsMatch(t, []string{"local", "replicated"}, clone.classes, "the disk's class and the golden's")
	assert.ElementsMatch(t, []string{"local.csi.openebs.io", linstor}, clone.drivers)
	assert.False(t, clone.defaultUsed, "an explicit class")
	assert.True(t, disk(golden)(clone), "its golden's DataVolume moves it")
	other := fixtures.DataVolume("cozy-public", "vm-default-images-debian").Obj()
	assert.False(t, disk(other)(clone), "another golden does not")

	onDefault := depsOf(decode(map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storageClass": ""}), snap)
	assert.True(t, onDefault.defaultUsed, "a class left to the cluster default: the default's move moves it")

	http := depsOf(decode(map[string]any{"source": map[string]any{"http": map[string]any{"url": "https://e.example/x.img"}}}), snap)
	assert.Equal(t, deps{disk: true, namespace: "tenant-demo", objects: []string{"tenant-demo/vm-disk-root"}}, http)

	live := fixtures.DataVolume("tenant-demo", "vm-disk-root").HTTP("https://e.example/u.img").Size("20Gi").Class("local").Obj()
	exists := depsOf(decode(map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storageClass": "local"}),
		state.NewSnapshot(fixtures.State(state.AllKinds, append(objs, live)...)))
	assert.False(t, exists.cluster, "the chart keeps a DataVolume that exists: no class or CDI moves it")
	assert.Empty(t, exists.classes)
	assert.True(t, disk(live)(exists), "its own DataVolume going away does")
}

// An unread PersistentVolume is granted get, as the controller reads it by
// name; any other kind list and watch.
func TestGrants(t *testing.T) {
	assert.Equal(t, "list and watch on StorageClass, CSIDriver", grants([]string{"StorageClass", "CSIDriver"}))
	assert.Equal(t, "get on PersistentVolume", grants([]string{"PersistentVolume"}))
	assert.Equal(t, "list and watch on StorageClass and get on PersistentVolume", grants([]string{"PersistentVolume", "StorageClass"}))
}
