package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
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
