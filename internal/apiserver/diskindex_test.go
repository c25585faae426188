package apiserver_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestDiskIndex: over a cache, a pool's plan reads its own disks of its
// namespace through the disk index, with the PVC of a disk whose PVC lost
// its annotations by name, and plans as a read of the namespace's every
// disk does; a disk written after the cache synced is in the index.
func TestDiskIndex(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	const ns = "tenant-index"
	d := fleet.ServedDisks(60, 1)
	golden := d.PVCs[0].Annotations[naming.GoldenAnnotation]
	id, version, ok := naming.ParseGoldenName(golden)
	require.True(t, ok)
	pool := plan.Pool{Namespace: ns, Name: "index-md0", Spec: plan.DefaultPoolSpec("index")}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
	for i := range d.PVCs {
		owner := naming.PoolCAPIName("index-md1")
		if i < 3 {
			owner = naming.PoolCAPIName(pool.Name)
		}
		for _, m := range []map[string]string{d.PVCs[i].Annotations, d.DataVolumes[i].Annotations} {
			m[naming.PoolAnnotation], m[naming.GoldenAnnotation] = owner, golden
		}
		d.PVCs[i].Namespace, d.DataVolumes[i].Namespace, d.Volumes[i].Spec.ClaimRef.Namespace = ns, ns, ns
		d.Volumes[i].Name = fmt.Sprintf("pv-index-%03d", i)
		d.PVCs[i].Spec.VolumeName = d.Volumes[i].Name
	}
	// The third disk's PVC carries no annotation: its DataVolume names the pool.
	delete(d.PVCs[2].Annotations, naming.PoolAnnotation)
	load(t, e, d)
	t.Cleanup(func() {
		for i := range d.PVCs {
			for _, o := range []client.Object{&d.PVCs[i], &d.DataVolumes[i], &d.Volumes[i]} {
				_ = e.Client.Delete(context.Background(), o)
			}
		}
	})

	c := e.Cache(t, e.Config)
	var seen []state.Ref
	own, err := controllerRuntime(c, plan.Needs(pool))
	require.NoError(t, err)
	whole, err := controllerRuntime(struct{ client.Reader }{c}, plan.Needs(pool))
	require.NoError(t, err)
	for _, p := range own.PersistentVolumeClaims {
		if p.Namespace == ns {
			seen = append(seen, state.Ref{Kind: state.PersistentVolumeClaim, Name: p.Name})
		}
	}
	for _, dv := range own.DataVolumes {
		if dv.Namespace == ns {
			seen = append(seen, state.Ref{Kind: state.DataVolume, Name: dv.Name})
		}
	}
	assert.Len(t, seen, 6, "the pool's three disks, DataVolume and PVC each: %v", seen)
	assert.Len(t, whole.PersistentVolumeClaims, 60, "without the index, every PVC of the namespace")
	want, _ := plan.Plan(pool, fleet.DefaultCatalog(), state.NewSnapshot(whole))
	got, _ := plan.Plan(pool, fleet.DefaultCatalog(), state.NewSnapshot(own))
	assert.Equal(t, want, got, "the pool's own disks plan as the namespace's every one")

	// A disk written now: the index follows the watch.
	more := fleet.ServedDisks(1, 1)
	for _, m := range []map[string]string{more.PVCs[0].Annotations, more.DataVolumes[0].Annotations} {
		m[naming.PoolAnnotation], m[naming.GoldenAnnotation] = naming.PoolCAPIName(pool.Name), golden
	}
	more.PVCs[0].Name, more.DataVolumes[0].Name = "late-disk-system", "late-disk-system"
	more.PVCs[0].Namespace, more.DataVolumes[0].Namespace = ns, ns
	more.Volumes[0].Name, more.PVCs[0].Spec.VolumeName = "pv-index-late", "pv-index-late"
	more.Volumes[0].Spec.ClaimRef.Namespace, more.Volumes[0].Spec.ClaimRef.Name = ns, "late-disk-system"
	load(t, e, more)
	t.Cleanup(func() {
		for _, o := range []client.Object{&more.PVCs[0], &more.DataVolumes[0], &more.Volumes[0]} {
			_ = e.Client.Delete(context.Background(), o)
		}
	})
	apiserver.WaitCached(t, c, &more.PVCs[0], &more.DataVolumes[0])
	after, err := controllerRuntime(c, plan.Needs(pool))
	require.NoError(t, err)
	names := map[string]bool{}
	for _, p := range after.PersistentVolumeClaims {
		names[p.Name] = true
	}
	assert.True(t, names["late-disk-system"], "a disk written after the sync is read through the index")
}
