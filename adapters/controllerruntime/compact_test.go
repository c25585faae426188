package controllerruntime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/compact"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestCompactCache: a cache that holds worker disks compactly gives a
// Reader the same State, and so the same plans, as one that holds them
// whole: for one pool (through the disk index), for every pool at once
// (across every namespace), and for a disk read by name. A manager's
// client reads copies, typed; a read without a copy cannot take a
// compact disk, and fails rather than read a part of it.
func TestCompactCache(t *testing.T) {
	const disks, pools = 400, 8
	d := fleet.ServedDisks(disks, 1)
	objs := fixtures.Cluster()
	golden := d.PVCs[0].Annotations[naming.GoldenAnnotation]
	id, version, _ := naming.ParseGoldenName(golden)
	var all []plan.Pool
	for p := range pools {
		pool := plan.Pool{Namespace: fixtures.TenantNamespace, Name: fmt.Sprintf("demo-md%03d", p), Spec: plan.DefaultPoolSpec(fixtures.ClusterName)}
		pool.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
		all = append(all, pool)
	}
	for i := range d.PVCs {
		owner := naming.PoolCAPIName(all[i%pools].Name)
		for _, m := range []map[string]string{d.PVCs[i].Annotations, d.DataVolumes[i].Annotations} {
			m[naming.PoolAnnotation], m[naming.GoldenAnnotation] = owner, golden
		}
		d.PVCs[i].Namespace, d.DataVolumes[i].Namespace = fixtures.TenantNamespace, fixtures.TenantNamespace
		d.PVCs[i].Spec.VolumeName = fmt.Sprintf("pv-%d", i)
		objs = append(objs, &d.PVCs[i], &d.DataVolumes[i])
	}
	whole := memoryCache(t, objs)
	small := memoryCacheWith(t, objs, compact.After)
	ctx := context.Background()
	cat := fleet.DefaultCatalog()

	items := listItems(t, small)
	require.NotEmpty(t, items)
	_, isClaim := items[0].(*compact.Claim)
	require.True(t, isClaim, "the compact cache holds records, or this test proves nothing")

	read := func(c client.Reader, req state.Request) *state.State {
		st, err := controllerruntime.New(c).Read(ctx, req)
		require.NoError(t, err)
		return st
	}
	for _, pool := range all[:2] {
		want, got := read(whole, plan.Needs(pool)), read(small, plan.Needs(pool))
		require.Len(t, got.PersistentVolumeClaims, disks/pools, "the pool's own disks, by the index")
		assert.ElementsMatch(t, want.PersistentVolumeClaims, got.PersistentVolumeClaims)
		assert.ElementsMatch(t, want.DataVolumes, got.DataVolumes)
		wantPlan, wantErr := plan.Plan(pool, cat, state.NewSnapshot(want))
		gotPlan, gotErr := plan.Plan(pool, cat, state.NewSnapshot(got))
		assert.Equal(t, wantPlan, gotPlan)
		assert.Equal(t, wantErr, gotErr)
	}
	want, got := read(whole, plan.NeedsAll(all)), read(small, plan.NeedsAll(all))
	assert.ElementsMatch(t, want.PersistentVolumeClaims, got.PersistentVolumeClaims)
	assert.ElementsMatch(t, want.DataVolumes, got.DataVolumes)

	byName := state.Request{Gets: []state.Ref{{Kind: state.PersistentVolumeClaim, Namespace: fixtures.TenantNamespace, Name: d.PVCs[7].Name}, {Kind: state.DataVolume, Namespace: fixtures.TenantNamespace, Name: "no-such-disk"}}}
	st := read(small, byName)
	require.Len(t, st.PersistentVolumeClaims, 1)
	assert.Equal(t, "pv-7", st.PersistentVolumeClaims[0].Spec.VolumeName, "a disk's own field, read by name")
	assert.Empty(t, st.DataVolumes, "a disk no store holds is absent")

	var pvc corev1.PersistentVolumeClaim
	require.NoError(t, small.Get(ctx, client.ObjectKeyFromObject(&d.PVCs[3]), &pvc), "a copy is typed")
	assert.Equal(t, "pv-3", pvc.Spec.VolumeName)
	var l, wholeList cdiv1.DataVolumeList
	require.NoError(t, whole.List(ctx, &wholeList, client.InNamespace(fixtures.TenantNamespace)))
	require.NoError(t, small.List(ctx, &l, client.InNamespace(fixtures.TenantNamespace)))
	assert.Equal(t, len(wholeList.Items), len(l.Items))
	assert.ElementsMatch(t, wholeList.Items, l.Items, "copies are the typed disks")
	assert.Error(t, small.List(ctx, &l, client.InNamespace(fixtures.TenantNamespace), client.UnsafeDisableDeepCopy),
		"a read without a copy cannot hand a record back as a DataVolume")
}

// listItems is the PVC informer's store items of c.
func listItems(t *testing.T, c cache.Cache) []any {
	t.Helper()
	inf, err := c.GetInformer(context.Background(), &corev1.PersistentVolumeClaim{})
	require.NoError(t, err)
	return inf.(toolscache.SharedIndexInformer).GetIndexer().List()
}
