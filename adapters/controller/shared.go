package controller

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// sharedFor is the longest a shared read is reused while no change to
// what it read was seen: a kind that was not watched when the controller
// started (not served, or not granted then) has no handler to say it
// changed.
const sharedFor = time.Second

// epoch counts the changes seen to what a shared read holds: the
// cluster-scoped kinds and the goldens. A handler moves it before it
// enqueues what the change affects, so that those plans read again.
type epoch struct {
	n   atomic.Uint64
	now func() time.Time
}

func (e *epoch) changed() { e.n.Add(1) }

// shared is one value read at an epoch, reused until the epoch moves or
// sharedFor passes.
type shared[T any] struct {
	mu    sync.Mutex
	ok    bool
	epoch uint64
	at    time.Time
	val   T
}

// get is the value read at the current epoch, read (by read) when there
// is none yet. The epoch is taken before the read: a change seen during
// it makes the value stale at once.
func (s *shared[T]) get(e *epoch, read func() (T, error)) (T, error) {
	n, now := e.n.Load(), e.now()
	s.mu.Lock()
	if s.ok && s.epoch == n && now.Sub(s.at) < sharedFor {
		v := s.val
		s.mu.Unlock()
		return v, nil
	}
	s.mu.Unlock()
	v, err := read()
	if err != nil {
		return v, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ok || n >= s.epoch {
		s.ok, s.epoch, s.at, s.val = true, n, now, v
	}
	return v, nil
}

// sharedCache is the manager's cache whose cluster-wide lists of the
// cluster-scoped kinds a plan reads (StorageClass, StorageProfile, CDI,
// CDIConfig, CSIDriver, VolumeSnapshotClass) are shared by every plan
// between two changes of them: when one change re-plans thousands of
// pools, each plan then reads them once, not the cache's informer once
// per pool. The lists' items are the cache's own objects, as a list
// without deep copy returns them: a plan only reads them. Every other read
// is the cache's.
type sharedCache struct {
	cache.Cache
	epoch *epoch
	lists sync.Map // the list's type → *shared[runtime.Object]
}

// ReadsByName forwards what the cache it wraps says: the reader's review
// then asks about get alone for the kinds it gets by name.
func (c *sharedCache) ReadsByName(gk schema.GroupKind) bool {
	b, ok := c.Cache.(interface{ ReadsByName(schema.GroupKind) bool })
	return ok && b.ReadsByName(gk)
}

// sharedKinds are the list types sharedCache shares.
var sharedKinds = map[reflect.Type]bool{
	reflect.TypeFor[*storagev1.StorageClassList]():         true,
	reflect.TypeFor[*cdiv1.StorageProfileList]():           true,
	reflect.TypeFor[*cdiv1.CDIList]():                      true,
	reflect.TypeFor[*cdiv1.CDIConfigList]():                true,
	reflect.TypeFor[*storagev1.CSIDriverList]():            true,
	reflect.TypeFor[*snapshotv1.VolumeSnapshotClassList](): true,
}

func (c *sharedCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	key := reflect.TypeOf(list)
	if !sharable(key, opts) {
		return c.Cache.List(ctx, list, opts...)
	}
	s, _ := c.lists.LoadOrStore(key, &shared[runtime.Object]{})
	got, err := s.(*shared[runtime.Object]).get(c.epoch, func() (runtime.Object, error) {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.Cache.List(ctx, l, opts...); err != nil {
			return nil, err
		}
		return l, nil
	})
	if err != nil {
		return err
	}
	// The items, not copies of them: the slice is shared, never changed.
	// Every shared kind is a typed list with an Items slice.
	reflect.ValueOf(list).Elem().FieldByName("Items").Set(reflect.ValueOf(got).Elem().FieldByName("Items"))
	return nil
}

// sharable reports whether a list of type t is a cluster-wide list of one
// of the shared kinds, with no option but that it need not be deep-copied.
func sharable(t reflect.Type, opts []client.ListOption) bool {
	if !sharedKinds[t] {
		return false
	}
	for _, o := range opts {
		if _, ok := o.(client.UnsafeDisableDeepCopyOption); !ok {
			return false
		}
	}
	return len(opts) > 0
}
