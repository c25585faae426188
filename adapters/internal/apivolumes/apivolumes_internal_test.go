package apivolumes

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// api is a fake API server holding one volume, counting the Gets of it.
func api(t *testing.T, gets *int) client.Client {
	t.Helper()
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1", UID: "u"},
		Spec: corev1.PersistentVolumeSpec{
			ClaimRef:               &corev1.ObjectReference{Namespace: "cozy-public", Name: "golden"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}},
		},
	}
	return fake.NewClientBuilder().WithObjects(pv).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			*gets++
			return c.Get(ctx, key, obj, opts...)
		},
	}).Build()
}

// A volume is read from the API, slimmed, and read again only once For
// has passed; within it, the first read is every read's.
func TestVolumeReadAgainAfterFor(t *testing.T) {
	gets := 0
	now := time.Unix(0, 0)
	c := &Cache{Cache: &informertest.FakeInformers{}, API: api(t, &gets), For: time.Second, now: func() time.Time { return now }}
	ctx := context.Background()
	read := func() *corev1.PersistentVolume {
		var pv corev1.PersistentVolume
		require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "pv-1"}, &pv))
		return &pv
	}
	pv := read()
	require.Equal(t, 1, gets)
	require.Equal(t, "d", pv.Spec.CSI.Driver)
	require.Equal(t, "golden", pv.Spec.ClaimRef.Name)
	require.Empty(t, pv.UID, "slimmed as the cache slims")
	require.Empty(t, pv.Spec.CSI.VolumeHandle, "slimmed as the cache slims")

	now = now.Add(time.Second - time.Nanosecond)
	read()
	require.Equal(t, 1, gets, "within For, the volume read is reused")
	now = now.Add(time.Nanosecond)
	read()
	require.Equal(t, 2, gets, "once For has passed, the volume is read again")

	var missing corev1.PersistentVolume
	require.Error(t, c.Get(ctx, client.ObjectKey{Name: "pv-2"}, &missing))
	require.Equal(t, 3, gets)
}

// Without For, every read of a volume is the API's.
func TestVolumeReadEachTimeWithoutFor(t *testing.T) {
	gets := 0
	c := &Cache{Cache: &informertest.FakeInformers{}, API: api(t, &gets)}
	for range 3 {
		var pv corev1.PersistentVolume
		require.NoError(t, c.Get(context.Background(), client.ObjectKey{Name: "pv-1"}, &pv))
	}
	require.Equal(t, 3, gets)
	var l corev1.PersistentVolumeList
	require.NoError(t, c.List(context.Background(), &l))
	require.Len(t, l.Items, 1)
	require.Equal(t, 3, gets, "a list is no get")
}

// The reads of one volume that miss together wait on one Get of it, and a
// caller that gives up returns at once, its context's error, without
// ending the read the others wait on.
func TestVolumeReadsInFlightShareOneGet(t *testing.T) {
	var gets atomic.Int32
	release := make(chan struct{})
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}}
	api := fake.NewClientBuilder().WithObjects(pv).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gets.Add(1)
			<-release
			return c.Get(ctx, key, obj, opts...)
		},
	}).Build()
	now := time.Unix(0, 0)
	c := &Cache{Cache: &informertest.FakeInformers{}, API: api, For: time.Second, now: func() time.Time { return now }}

	const readers = 16
	var wg sync.WaitGroup
	errs := make([]error, readers)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got corev1.PersistentVolume
			errs[i] = c.Get(context.Background(), client.ObjectKey{Name: "pv-1"}, &got)
		}()
	}
	gaveUp, cancel := context.WithCancel(context.Background())
	quit := make(chan error)
	go func() {
		var got corev1.PersistentVolume
		quit <- c.Get(gaveUp, client.ObjectKey{Name: "pv-1"}, &got)
	}()
	time.Sleep(100 * time.Millisecond) // the readers reach the read in flight
	cancel()
	require.ErrorIs(t, <-quit, context.Canceled, "a caller that gives up does not wait on the read")
	close(release)
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.EqualValues(t, 1, gets.Load(), "one Get for the reads that missed together")
}
