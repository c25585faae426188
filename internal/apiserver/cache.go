package apiserver

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Cache starts an informer cache for cfg, the one a manager gives its
// reconcilers through mgr.GetClient(), and stops it when the test ends.
// Its informers start at the first read of each kind, which waits for them
// to sync.
func (e *Env) Cache(t testing.TB, cfg *rest.Config) cache.Cache {
	t.Helper()
	c, err := cache.New(cfg, cache.Options{Scheme: e.Client.Scheme()})
	if err != nil {
		t.Fatalf("cache: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("cache: %v", err)
		}
	})
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("cache never started")
	}
	return c
}

// WaitCached waits until r, a cache, holds each of objs at the
// resourceVersion it has, which is what a write returned: the cache has
// then seen the write.
func WaitCached(t testing.TB, r client.Reader, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		want := o.GetResourceVersion()
		got := o.DeepCopyObject().(client.Object)
		err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := r.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			return got.GetResourceVersion() == want, nil
		})
		if err != nil {
			t.Fatalf("the cache never saw %s/%s at resourceVersion %s: %v", o.GetNamespace(), o.GetName(), want, err)
		}
	}
}
