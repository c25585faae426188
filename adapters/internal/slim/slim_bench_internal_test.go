package slim

import (
	"encoding/json"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/compact"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// BenchmarkCacheMemory is the heap an informer's store holds for worker
// disks (each a DataVolume, its PVC and its volume, as served), decoded
// from JSON as the informer does and put in an indexer by namespace:
// whole, with managedFields stripped (what the webhook cached before),
// through the planner's transform, and through it and the controller's
// compact store (a pool for each of the 100 goldens, its disks sharing
// one object of each kind and state). B/disk is the heap after a GC,
// less the heap before, per disk.
func BenchmarkCacheMemory(b *testing.B) {
	const n = 10000
	d := fleet.ServedDisks(n, 100)
	type item struct {
		raw []byte
		new func() any
	}
	var items []item
	add := func(o any, new func() any) {
		raw, err := json.Marshal(o)
		if err != nil {
			b.Fatal(err)
		}
		items = append(items, item{raw, new})
	}
	var wire int
	for i := range n {
		// A pool's disks clone one golden.
		pool := naming.PoolCAPIName("md-" + d.PVCs[i].Annotations[naming.GoldenAnnotation])
		d.PVCs[i].Annotations[naming.PoolAnnotation] = pool
		d.DataVolumes[i].Annotations[naming.PoolAnnotation] = pool
		add(&d.PVCs[i], func() any { return &corev1.PersistentVolumeClaim{} })
		add(&d.DataVolumes[i], func() any { return &cdiv1.DataVolume{} })
		add(&d.Volumes[i], func() any { return &corev1.PersistentVolume{} })
	}
	for _, it := range items {
		wire += len(it.raw)
	}
	d = fleet.Disks{}
	b.Logf("%d disks, %.0f bytes of JSON per disk", n, float64(wire)/n)
	for _, tc := range []struct {
		name string
		tf   toolscache.TransformFunc
	}{
		{"Whole", nil},
		{"StripManagedFields", cache.TransformStripManagedFields()},
		{"Transform", Transform},
		{"Compact", compact.After(Transform)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var perDisk float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				idx := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
				for _, it := range items {
					o := it.new()
					if err := json.Unmarshal(it.raw, o); err != nil {
						b.Fatal(err)
					}
					if tc.tf != nil {
						var err error
						if o, err = tc.tf(o); err != nil {
							b.Fatal(err)
						}
					}
					if err := idx.Add(o); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perDisk = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
				runtime.KeepAlive(idx)
			}
			b.ReportMetric(perDisk, "B/disk")
		})
	}
}
