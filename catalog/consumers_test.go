package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// pvcRef is a PVC in ns carrying annotations, and nothing else.
func pvcRef(ns, name string, annotations map[string]string) corev1.PersistentVolumeClaim {
	return *fixtures.PVC(ns, name).Annotations(annotations).Obj()
}

func TestConsumers(t *testing.T) {
	const pool = "kubernetes-demo-md0"
	annotated := map[string]string{naming.GoldenAnnotation: goldenA, naming.PoolAnnotation: pool}

	byRef := *fixtures.PVC("tenant-c", "restored").DataSourceRef(naming.GoldenNamespace, goldenA).Obj()
	refOtherNS := *fixtures.PVC("tenant-c", "not-a-clone").DataSourceRef("", goldenA).Obj()
	bySource := pvcRef(naming.GoldenNamespace, "scratch", nil)
	bySource.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: goldenA}
	snapshotSource := pvcRef(naming.GoldenNamespace, "from-snapshot", nil)
	snapshotSource.Spec.DataSource = &corev1.TypedLocalObjectReference{APIGroup: ptr.To("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: goldenA}
	otherNSSource := sourceDV("tenant-d", "copy", goldenA)
	otherNSSource.Spec.Source.PVC.Namespace = "tenant-x"
	both := sourceDV("tenant-e", "both", goldenA)
	both.Annotations = annotated

	s := cluster(
		[]cdiv1.DataVolume{
			liveDV(idA, urlA, "6Gi", "replicated"),
			workerDV(tenantNS, "demo-md0-disk-1", goldenA, pool),
			sourceDV("tenant-b", "vm-root", goldenA),
			workerDV(tenantNS, "demo-md0-other", goldenB, pool),
			otherNSSource,
			both,
		},
		[]corev1.PersistentVolumeClaim{
			livePVC(idA, "replicated", "6Gi", ""),
			pvcRef(tenantNS, "demo-md0-disk-1", annotated),
			pvcRef(tenantNS, "demo-md0-disk-0", annotated),
			byRef, refOtherNS, bySource, snapshotSource,
		},
	)
	got := Consumers(goldenA, state.NewSnapshot(s), readPools)
	assert.Equal(t, goldenA, got.Golden)
	assert.Equal(t, []Consumer{
		{KindPersistentVolumeClaim, naming.GoldenNamespace, "scratch", ""},
		{KindPersistentVolumeClaim, tenantNS, "demo-md0-disk-0", pool},
		{KindDataVolume, tenantNS, "demo-md0-disk-1", pool},
		{KindDataVolume, "tenant-b", "vm-root", ""},
		{KindPersistentVolumeClaim, "tenant-c", "restored", ""},
		{KindDataVolume, "tenant-e", "both", pool},
	}, sortedByNamespace(got.Consumers),
		"by annotation (a DataVolume and its PVC once; a PVC whose DataVolume is gone), by source.pvc, by dataSourceRef, by dataSource in cozy-public; never the golden itself, another golden's disk, a source elsewhere or a snapshot")
	assert.Empty(t, got.Warnings)
}

// sortedByNamespace checks the order the index promises and returns cs.
func sortedByNamespace(cs []Consumer) []Consumer {
	for i := 1; i < len(cs); i++ {
		a, b := cs[i-1], cs[i]
		if a.Namespace > b.Namespace || (a.Namespace == b.Namespace && a.Name > b.Name) {
			return nil
		}
	}
	return cs
}

func TestConsumersInOtherNamespaces(t *testing.T) {
	cases := map[string]struct {
		reason string
		dv     cdiv1.DataVolume
		want   []Consumer
	}{
		"AnnotationAlone": {
			reason: "a disk in a tenant namespace found by the disk annotation, with no source.pvc",
			dv:     workerDV("tenant-far", "disk", goldenA, "kubernetes-far-md1"),
			want:   []Consumer{{KindDataVolume, "tenant-far", "disk", "kubernetes-far-md1"}},
		},
		"SourcePVCAlone": {
			reason: "a disk in a tenant namespace found by source.pvc, with no annotation",
			dv:     sourceDV("tenant-far", "disk", goldenA),
			want:   []Consumer{{KindDataVolume, "tenant-far", "disk", ""}},
		},
		"AnotherGolden": {
			reason: "neighbour: a disk of another golden is not a consumer",
			dv:     sourceDV("tenant-far", "disk", goldenB),
			want:   []Consumer{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Consumers(goldenA, state.NewSnapshot(cluster([]cdiv1.DataVolume{tc.dv}, nil)), readPools)
			assert.Equal(t, tc.want, got.Consumers, tc.reason)
		})
	}
}

func TestConsumersPoolFromPVC(t *testing.T) {
	dv := sourceDV(tenantNS, "disk", goldenA)
	p := pvcRef(tenantNS, "disk", map[string]string{naming.PoolAnnotation: "kubernetes-demo-md0"})
	got := Consumers(goldenA, state.NewSnapshot(cluster([]cdiv1.DataVolume{dv}, []corev1.PersistentVolumeClaim{p})), readPools)
	assert.Equal(t, []Consumer{{KindDataVolume, tenantNS, "disk", "kubernetes-demo-md0"}}, got.Consumers,
		"a disk's pool is read from its PVC when its DataVolume does not carry it")
}

func TestConsumersUnobserved(t *testing.T) {
	s := cluster([]cdiv1.DataVolume{workerDV(tenantNS, "disk", goldenA, "p"), workerDV("tenant-elsewhere", "disk", goldenA, "q")}, nil)
	s.Namespaces = []string{tenantNS, naming.GoldenNamespace}
	got := Consumers(goldenA, state.NewSnapshot(s), readPools)
	assert.Equal(t, []Consumer{{KindDataVolume, tenantNS, "disk", "p"}}, got.Consumers, "what was observed is listed, nothing outside it")
	var kinds []string
	for _, w := range got.Warnings {
		assert.Equal(t, fixtures.Finding{Reason: guard.StateUnverified, Field: "consumers"}, fixtures.Warned(guard.Warnings{w})[0])
		kinds = append(kinds, w.Kind)
	}
	assert.Equal(t, []string{"PersistentVolumeClaim", "DataVolume", "KubevirtMachineTemplate", "VirtualMachine", "DataSource",
		"KubernetesNodes", "HelmRelease"}, kinds,
		"every consumer kind read in some namespaces only may hide consumers, each named")

	none := Consumers(goldenA, nil, readPools)
	assert.Equal(t, []Consumer{}, none.Consumers, "an empty answer is [], never null")
	assert.Len(t, none.Warnings, 7)
}

func TestConsumerIndexRepeatedObject(t *testing.T) {
	d := workerDV(tenantNS, "disk", goldenA, "p")
	got := Consumers(goldenA, state.NewSnapshot(cluster([]cdiv1.DataVolume{d, d}, nil)), readPools)
	assert.Len(t, got.Consumers, 1, "an object listed twice is one disk")
}

// testPool is a pool object of kind as readPools reads it.
func testPool(kind, name string, spec map[string]any) unstructured.Unstructured {
	return unstructured.Unstructured{Object: map[string]any{"kind": kind,
		"metadata": map[string]any{"namespace": tenantNS, "name": name}, "spec": spec}}
}

// TestPoolReader: a pool is a consumer of the golden its reader names,
// listed by kind, namespace, name and pool; what its reader says is no
// pool, or clones no golden, is none. Without a reader no pool is read,
// and the pool kinds count as unobserved; a pool whose golden cannot be
// told may clone any, so nothing is safe to delete and a warning names it.
func TestPoolReader(t *testing.T) {
	goldens := []cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "replicated"), liveDV(idB, naming.ImageURL(factory, idB, v1136), "6Gi", "replicated")}
	s := cluster(goldens, nil)
	s.KubernetesNodes = []unstructured.Unstructured{
		testPool("KubernetesNodes", "demo-md0", map[string]any{"pool": "kubernetes-demo-md0", "golden": goldenA}),
		testPool("KubernetesNodes", "demo-md1", map[string]any{"pool": "kubernetes-demo-md1"}),
	}
	s.HelmReleases = []unstructured.Unstructured{
		testPool("HelmRelease", "kubernetes-nodes-demo-md0", map[string]any{"pool": "kubernetes-demo-md0", "golden": goldenA}),
		testPool("HelmRelease", "other", map[string]any{"golden": goldenB}),
	}
	snap := state.NewSnapshot(s)
	none := Compile(values())

	idx := NewConsumerIndex(snap, readPools)
	assert.Equal(t, []Consumer{
		{KindKubernetesNodes, tenantNS, "demo-md0", "kubernetes-demo-md0"},
		{KindHelmRelease, tenantNS, "kubernetes-nodes-demo-md0", "kubernetes-demo-md0"},
	}, idx.Of(goldenA), "a pool declared twice is two consumers, sorted by namespace and name")
	assert.Equal(t, 1, idx.Radius(goldenA).Pools, "and one pool")
	assert.Empty(t, idx.Of(goldenB), "neighbour: what its reader says is no pool clones nothing")
	assert.True(t, idx.complete())
	assert.Equal(t, []string{goldenB}, Prune(none, snap, readPools).SafeToDelete)

	unread := NewConsumerIndex(snap, nil)
	assert.Empty(t, unread.Of(goldenA), "no reader, no pool read")
	assert.Equal(t, state.KubernetesNodes|state.HelmRelease, unread.Unobserved())
	assert.Empty(t, Prune(none, snap, nil).SafeToDelete, "pools not read may clone any golden")

	s.HelmReleases = append(s.HelmReleases, testPool("HelmRelease", "kubernetes-nodes-demo-md2",
		map[string]any{"pool": "kubernetes-demo-md2", "unreadable": "its values come from ConfigMap pool-values"}))
	snap = state.NewSnapshot(s)
	undecided := NewConsumerIndex(snap, readPools)
	assert.False(t, undecided.complete(), "a pool whose golden cannot be told may hide a consumer")
	assert.Equal(t, state.Kind(0), undecided.Unobserved(), "though every kind was observed")
	res := undecided.result(goldenB)
	require.Len(t, res.Warnings, 1)
	assert.Equal(t, fixtures.Finding{Reason: guard.StateUnverified, Field: "consumers"}, fixtures.Warned(res.Warnings)[0])
	assert.Equal(t, "HelmRelease", res.Warnings[0].Kind)
	assert.Contains(t, res.Warnings[0].Detail, "HelmRelease "+tenantNS+"/kubernetes-nodes-demo-md2 (pool kubernetes-demo-md2)")
	assert.Contains(t, res.Warnings[0].Detail, "its values come from ConfigMap pool-values")
	rep := Prune(none, snap, readPools)
	assert.Empty(t, rep.SafeToDelete)
	require.Len(t, rep.Warnings, 1)
	assert.Contains(t, rep.Warnings[0].Detail, "nothing is reported safe to delete (unmanaged goldens with no consumer seen: "+goldenB+")")
}
