// Package apivolumes reads PersistentVolumes through the API server and
// every other kind through a controller-runtime cache: most objects of a
// cluster with many worker disks are their volumes, each of which an
// informer would hold (about 1 KB of heap each, however slimmed), while a
// plan reads by name only the few volumes of its golden (and of a VM
// disk's source).
package apivolumes

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/slim"
)

// Cache is a cache whose PersistentVolumes are read from API instead: a
// Get or List of them never starts an informer. Each volume read is
// slimmed as the cache slims what it holds. With For set, a volume read
// by name is read again from the API only once For has passed since it
// was (a controller that plans thousands of pools of one golden at once
// reads its volume once), which may make a read For older than the
// cache's would be.
type Cache struct {
	cache.Cache
	API client.Reader
	For time.Duration
	// now is the clock, time.Now when nil.
	now func() time.Time

	mu   sync.Mutex
	read map[string]volume
	// reading holds the reads in flight: the reads of one volume that
	// miss together wait on one Get.
	reading singleflight.Group
}

// volume is a volume read, when, or the read's error.
type volume struct {
	at  time.Time
	pv  *corev1.PersistentVolume
	err error
}

// readTimeout bounds a read of a volume shared by the callers that miss
// together: it outlives the caller that started it, each of which waits
// only as long as its own context.
const readTimeout = 10 * time.Second

// Get reads a PersistentVolume from the API server, anything else from the
// cache.
func (c *Cache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok {
		return c.Cache.Get(ctx, key, obj, opts...)
	}
	if c.For <= 0 {
		return c.get(ctx, key, pv)
	}
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	c.mu.Lock()
	v, ok := c.read[key.Name]
	c.mu.Unlock()
	if !ok || now().Sub(v.at) >= c.For {
		read := c.reading.DoChan(key.Name, func() (any, error) {
			at := now()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readTimeout)
			defer cancel()
			v := volume{at: at, pv: &corev1.PersistentVolume{}}
			v.err = c.get(rctx, key, v.pv)
			if rctx.Err() != nil {
				// Nothing was learnt of the volume.
				return v, nil
			}
			c.mu.Lock()
			if c.read == nil {
				c.read = map[string]volume{}
			}
			for name, old := range c.read {
				if at.Sub(old.at) >= c.For {
					delete(c.read, name)
				}
			}
			c.read[key.Name] = v
			c.mu.Unlock()
			return v, nil
		})
		select {
		case r := <-read:
			v = r.Val.(volume)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if v.err != nil {
		return v.err
	}
	// The volume is shared by the reads of the same moment, as a cache's
	// objects are: read it, never write it.
	*pv = *v.pv
	return nil
}

func (c *Cache) get(ctx context.Context, key client.ObjectKey, pv *corev1.PersistentVolume) error {
	if err := c.API.Get(ctx, key, pv); err != nil {
		return err
	}
	_, err := slim.Transform(pv)
	return err
}

// ReadsByName reports whether the cache gets a kind by name from the API
// server: PersistentVolumes, for which its identity needs get, not list
// and watch.
func (c *Cache) ReadsByName(gk schema.GroupKind) bool {
	return gk == schema.GroupKind{Kind: "PersistentVolume"}
}

// List lists PersistentVolumes from the API server, anything else from
// the cache.
func (c *Cache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	l, ok := list.(*corev1.PersistentVolumeList)
	if !ok {
		return c.Cache.List(ctx, list, opts...)
	}
	if err := c.API.List(ctx, l, opts...); err != nil {
		return err
	}
	for i := range l.Items {
		if _, err := slim.Transform(&l.Items[i]); err != nil {
			return err
		}
	}
	return nil
}
