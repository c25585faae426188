package controllerruntime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/diskindex"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// memoryCache is a controller-runtime cache made with CacheOptions whose
// informers list objs and watch nothing, in place of an API server.
func memoryCache(b testing.TB, objs []client.Object) cache.Cache {
	b.Helper()
	return memoryCacheWith(b, objs, nil)
}

// memoryCacheWith is memoryCache with transform after CacheOptions' own.
func memoryCacheWith(b testing.TB, objs []client.Object, transform func(toolscache.TransformFunc) toolscache.TransformFunc) cache.Cache {
	b.Helper()
	scheme := fixtures.Scheme()
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, info := range kinds.All {
		scope := meta.RESTScopeRoot
		if info.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		mapper.Add(info.GVK, scope)
	}
	opts := controllerruntime.CacheOptions()
	if transform != nil {
		opts.DefaultTransform = transform(opts.DefaultTransform)
	}
	opts.Scheme, opts.Mapper = scheme, mapper
	opts.NewInformer = func(_ toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, idx toolscache.Indexers) toolscache.SharedIndexInformer {
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			b.Fatal(err)
		}
		lw := &toolscache.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				l, err := scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
				if err != nil {
					return nil, err
				}
				var items []runtime.Object
				for _, o := range objs {
					if g, _ := apiutil.GVKForObject(o, scheme); g == gvk {
						items = append(items, o.DeepCopyObject())
					}
				}
				return l, meta.SetList(l, items)
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
		}
		return toolscache.NewSharedIndexInformer(listOnly{lw}, obj, resync, idx)
	}
	c, err := cache.New(&rest.Config{Host: "https://127.0.0.1:1"}, opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("the cache did not sync")
	}
	return c
}

// listOnly is a ListerWatcher that a reflector lists, rather than asks
// for a watch that streams the list.
type listOnly struct{ *toolscache.ListWatch }

func (listOnly) IsWatchListSemanticsUnSupported() bool { return true }

// BenchmarkReadPool reads and plans one pool of a namespace of 5,000
// worker disks of 100 pools, from a cache made with CacheOptions: through
// the cache itself (the pool's 50 disks, by the disk index) and through
// a plain client.Reader over it (the namespace's every disk, as a
// manager's client reads).
//
//	go test ./adapters/controllerruntime -run '^$' -bench ReadPool -benchmem
func BenchmarkReadPool(b *testing.B) {
	const disks, pools = 5000, 100
	d := fleet.ServedDisks(disks, 1)
	objs := fixtures.Cluster()
	golden := d.PVCs[0].Annotations[naming.GoldenAnnotation]
	for i := range d.PVCs {
		owner := naming.PoolCAPIName(fmt.Sprintf("demo-md%03d", i%pools))
		for _, m := range []map[string]string{d.PVCs[i].Annotations, d.DataVolumes[i].Annotations} {
			m[naming.PoolAnnotation], m[naming.GoldenAnnotation] = owner, golden
		}
		d.PVCs[i].Namespace, d.DataVolumes[i].Namespace = fixtures.TenantNamespace, fixtures.TenantNamespace
		objs = append(objs, &d.PVCs[i], &d.DataVolumes[i])
	}
	id, version, _ := naming.ParseGoldenName(golden)
	pool := plan.Pool{Namespace: fixtures.TenantNamespace, Name: "demo-md000", Spec: plan.DefaultPoolSpec(fixtures.ClusterName)}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
	c := memoryCache(b, objs)
	// The informers start, and the index is added, on the first read, as
	// the webhook's warm-up makes it.
	if _, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool)); err != nil {
		b.Fatal(err)
	}
	cat := fleet.DefaultCatalog()
	for name, r := range map[string]client.Reader{"Index": c, "Namespace": struct{ client.Reader }{c}} {
		b.Run(name, func(b *testing.B) {
			reader := controllerruntime.New(r)
			b.ReportAllocs()
			for b.Loop() {
				st, err := reader.Read(context.Background(), plan.Needs(pool))
				if err != nil {
					b.Fatal(err)
				}
				plan.Plan(pool, cat, state.NewSnapshot(st))
			}
		})
	}
}

// TestDiskIndexAdd: the warm-up's index is added once, and a second add
// (or a read that added it first) is no error; the index answers a pool
// in its namespace, not a pool of the same name in another, and a list
// across every namespace (which no plan makes) finds nothing.
func TestDiskIndexAdd(t *testing.T) {
	a := map[string]string{naming.PoolAnnotation: "kubernetes-demo-md0", naming.GoldenAnnotation: "talos-worker-x-v1.0.0"}
	objs := []client.Object{
		&cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "own", Annotations: a}},
		&cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "no-golden", Annotations: map[string]string{naming.PoolAnnotation: "kubernetes-demo-md0"}}},
		&cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "u", Name: "elsewhere", Annotations: a}},
	}
	c := memoryCache(t, objs)
	ctx := context.Background()
	require.NoError(t, diskindex.Add(ctx, c))
	require.NoError(t, diskindex.Add(ctx, c), "added already")
	var l cdiv1.DataVolumeList
	require.NoError(t, c.List(ctx, &l, client.InNamespace("t"), client.MatchingFields{diskindex.Field: "kubernetes-demo-md0"}))
	require.Len(t, l.Items, 1, "a disk without a golden annotation proves no clone, and is not indexed")
	assert.Equal(t, "own", l.Items[0].Name)
	require.NoError(t, c.List(ctx, &l, client.InNamespace("u"), client.MatchingFields{diskindex.Field: "kubernetes-demo-md0"}))
	require.Len(t, l.Items, 1)
	assert.Equal(t, "elsewhere", l.Items[0].Name, "the pool of that name in its own namespace")
	require.NoError(t, c.List(ctx, &l, client.MatchingFields{diskindex.Field: "kubernetes-demo-md0"}))
	assert.Empty(t, l.Items, "the index is read one namespace at a time")
}
