package compact

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// disk is a pool's PVC, of ns and size, named name, bound to volume.
func disk(ns, name, size, volume string) *corev1.PersistentVolumeClaim {
	class := "replicated"
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, ResourceVersion: "rv-" + name,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 12, 4, 0, 0, len(name), 0, time.UTC)),
			Annotations:       map[string]string{naming.PoolAnnotation: "kubernetes-demo-md0", naming.GoldenAnnotation: "talos-worker-x-v1.0.0"},
			Labels:            map[string]string{"app": "demo"},
		},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &class, VolumeName: volume,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
}

func volume(ns, name, claim string) *cdiv1.DataVolume {
	return &cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, ResourceVersion: "rv-" + name,
			Annotations: map[string]string{naming.PoolAnnotation: "kubernetes-demo-md0", naming.GoldenAnnotation: "talos-worker-x-v1.0.0"},
		},
		Spec:   cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: "talos-worker-x-v1.0.0"}}},
		Status: cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded, ClaimName: claim},
	}
}

func transform(t testing.TB, o client.Object) client.Object {
	t.Helper()
	out, err := Transform(o)
	require.NoError(t, err)
	return out.(client.Object)
}

// TestTransformShares: a pool's disks equal but for their own fields share
// one object, and each reads back, as an object and as a deep copy,
// exactly as it was given.
func TestTransformShares(t *testing.T) {
	ns := t.Name()
	var got []*Claim
	for i := range 3 {
		in := disk(ns, fmt.Sprintf("disk-%d", i), "10Gi", fmt.Sprintf("pv-%d", i))
		want := in.DeepCopy()
		c, ok := transform(t, in).(*Claim)
		require.True(t, ok, "a worker disk is made a Claim")
		assert.Equal(t, want, c.Object())
		assert.Equal(t, want, c.DeepCopyObject())
		assert.Equal(t, want.Name, c.GetName())
		assert.Equal(t, want.ResourceVersion, c.GetResourceVersion())
		assert.Equal(t, want.CreationTimestamp, c.GetCreationTimestamp())
		assert.Equal(t, want.Annotations, c.GetAnnotations())
		assert.Equal(t, ns, c.GetNamespace())
		got = append(got, c)
	}
	assert.Same(t, got[0].shared, got[2].shared, "equal disks share one object")
	assert.Equal(t, 1, claims.held(keyOf(got[0].Object())))

	bigger := transform(t, disk(ns, "disk-big", "20Gi", "pv-big")).(*Claim)
	assert.NotSame(t, got[0].shared, bigger.shared, "a disk of another size is its own")

	in := volume(ns, "dv-0", "disk-0")
	want := in.DeepCopy()
	v, ok := transform(t, in).(*Volume)
	require.True(t, ok, "a worker DataVolume is made a Volume")
	assert.Equal(t, want, v.Object())
	assert.JSONEq(t, string(must(t, want)), string(must(t, v)), "its JSON is the DataVolume's")
	other := transform(t, volume(ns, "dv-1", "disk-1")).(*Volume)
	assert.Same(t, v.shared, other.shared)
	assert.Equal(t, "disk-1", other.Object().Status.ClaimName)
}

func must(t *testing.T, o any) []byte {
	t.Helper()
	b, err := jsonMarshal(o)
	require.NoError(t, err)
	return b
}

// TestTransformLeaves: a disk without both annotations, a golden in the
// goldens' namespace, and any other object pass as they are.
func TestTransformLeaves(t *testing.T) {
	noGolden := disk(t.Name(), "a", "10Gi", "pv-a")
	delete(noGolden.Annotations, naming.GoldenAnnotation)
	noPool := volume(t.Name(), "b", "b")
	delete(noPool.Annotations, naming.PoolAnnotation)
	golden := volume(naming.GoldenNamespace, "talos-worker-x-v1.0.0", "talos-worker-x-v1.0.0")
	for _, o := range []any{noGolden, noPool, golden, &corev1.PersistentVolume{}} {
		out, err := Transform(o)
		require.NoError(t, err)
		assert.Same(t, o, out, "%T", o)
	}
	out, err := Transform("not an object")
	require.NoError(t, err)
	assert.Equal(t, "not an object", out)
	c := transform(t, disk(t.Name(), "c", "10Gi", "pv-c"))
	assert.Same(t, c, transform(t, c), "a Claim is made once")
}

// TestSettersWriteOwnCopy: a setter changes the disk it is called on, not
// the object it shares with the others.
func TestSettersWriteOwnCopy(t *testing.T) {
	ns := t.Name()
	a := transform(t, disk(ns, "a", "10Gi", "pv-a")).(*Claim)
	b := transform(t, disk(ns, "b", "10Gi", "pv-b")).(*Claim)
	require.Same(t, a.shared, b.shared)
	a.SetLabels(map[string]string{"app": "other"})
	a.SetFinalizers([]string{"kubernetes.io/pvc-protection"})
	a.SetName("renamed")
	a.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	assert.Equal(t, map[string]string{"app": "other"}, a.GetLabels())
	assert.Equal(t, []string{"kubernetes.io/pvc-protection"}, a.GetFinalizers())
	assert.Equal(t, "renamed", a.GetName())
	assert.Equal(t, "PersistentVolumeClaim", a.GetObjectKind().GroupVersionKind().Kind)
	assert.Equal(t, map[string]string{"app": "demo"}, b.GetLabels(), "the other disk is as it was")
	assert.Empty(t, b.GetFinalizers())
	assert.Equal(t, "b", b.GetName())
	assert.Empty(t, b.GetObjectKind().GroupVersionKind().Kind)
	assert.NotSame(t, a.shared, b.shared)

	c := b.DeepCopyObject().(*corev1.PersistentVolumeClaim)
	c.Annotations["x"] = "y"
	assert.NotContains(t, b.GetAnnotations(), "x", "a deep copy is the caller's own")
}

// TestBucketLimit: a namespace's disks of one set of annotations and labels
// get bucketLimit distinct shared objects; the next distinct disk stays
// whole, as it came, and one equal to a shared object still shares it.
func TestBucketLimit(t *testing.T) {
	ns := t.Name()
	var kept []*Claim
	for i := range bucketLimit {
		c, ok := transform(t, disk(ns, fmt.Sprintf("d%d", i), fmt.Sprintf("%dGi", 10+i), "pv")).(*Claim)
		require.True(t, ok, "disk %d of %d distinct ones is shared", i+1, bucketLimit)
		kept = append(kept, c)
	}
	in := disk(ns, "past", "99Gi", "pv-past")
	want := in.DeepCopy()
	out := transform(t, in)
	require.IsType(t, &corev1.PersistentVolumeClaim{}, out, "past the limit a disk stays typed")
	assert.Equal(t, want, out, "and whole")
	same, ok := transform(t, disk(ns, "again", "10Gi", "pv-again")).(*Claim)
	require.True(t, ok)
	assert.Same(t, kept[0].shared, same.shared)
	runtime.KeepAlive(kept)
}

// TestTableForgets: a shared object that no disk holds any more is
// collected and leaves the table.
func TestTableForgets(t *testing.T) {
	ns := t.Name()
	c := transform(t, disk(ns, "a", "10Gi", "pv-a")).(*Claim)
	key := keyOf(c.Object())
	require.Equal(t, 1, claims.held(key))
	c = nil
	require.Eventually(t, func() bool {
		runtime.GC()
		claims.mu.Lock()
		defer claims.mu.Unlock()
		_, ok := claims.buckets[key]
		return !ok
	}, 10*time.Second, 10*time.Millisecond, "the bucket is dropped once its object is collected")
	_ = c
}

// TestStoreItems: an informer's items expand to typed disks, a Claim as its
// object and a PVC as it is; a foreign type is an error that names it.
func TestStoreItems(t *testing.T) {
	ns := t.Name()
	whole := disk(ns, "whole", "10Gi", "pv-w")
	delete(whole.Annotations, naming.GoldenAnnotation)
	c := transform(t, disk(ns, "c", "10Gi", "pv-c"))
	got, err := Claims(nil, []any{c, whole})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "c", got[0].Name)
	assert.Equal(t, "pv-c", got[0].Spec.VolumeName)
	assert.Equal(t, *whole, got[1])
	_, err = Claims(nil, []any{volume(ns, "v", "v")})
	assert.ErrorContains(t, err, "v1beta1.DataVolume")
	v := transform(t, volume(ns, "v", "claim-v"))
	dvs, err := DataVolumes(nil, []any{v})
	require.NoError(t, err)
	require.Len(t, dvs, 1)
	assert.Equal(t, "claim-v", dvs[0].Status.ClaimName)
	_, err = DataVolumes(nil, []any{c})
	assert.ErrorContains(t, err, "compact.record")

	// Appended to what into holds, over a slot a shorter slice left.
	stale := []corev1.PersistentVolumeClaim{*whole, *whole}
	got, err = Claims(stale[:1], []any{c})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, *whole, got[0])
	assert.Equal(t, *c.(*Claim).Object(), got[1])
}

// BenchmarkExpand reads a pool's disks out of a store's items, as a plan
// does: one allocation for the slice, none a disk.
func BenchmarkExpand(b *testing.B) {
	ns := b.Name()
	items := make([]any, 10)
	for i := range items {
		name := fmt.Sprintf("d%d", i)
		items[i] = transform(b, disk(ns, name, "10Gi", "pv-"+name))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Claims(nil, items); err != nil {
			b.Fatal(err)
		}
	}
}
