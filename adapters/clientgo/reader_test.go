package clientgo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/clientgo"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// requests counts the reads both fakes recorded.
func requests(cs *kubefake.Clientset, dyn *dynamicfake.FakeDynamicClient) (lists, gets int) {
	for _, a := range append(cs.Actions(), dyn.Actions()...) {
		switch a.GetVerb() {
		case "list":
			lists++
		case "get":
			gets++
		}
	}
	return lists, gets
}

func read(t *testing.T, cs *kubefake.Clientset, dyn *dynamicfake.FakeDynamicClient, req state.Request) (*state.State, error) {
	t.Helper()
	return clientgo.New(cs, dyn).Read(context.Background(), req)
}

var pool = fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)

func TestOnePool(t *testing.T) {
	cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
	st, err := read(t, cs, dyn, plan.Needs(pool))
	require.NoError(t, err)

	lists, gets := requests(cs, dyn)
	assert.LessOrEqual(t, lists+gets, 11, "one pool: one request per object or kind it needs")
	assert.Equal(t, [2]int{8, 3}, [2]int{lists, gets},
		"8 lists (6 cluster-scoped kinds, the namespace's PVCs and DataVolumes) and 3 gets (the golden's DataVolume, PVC and volume)")
	assert.Equal(t, []string{"pv-" + fixtures.Golden}, volumeGets(cs), "the golden's volume is read by the name its claim gives")

	assert.Equal(t, state.PlanKinds&^state.PersistentVolume, st.Observed, "a volume read by name observes no more than itself")
	assert.Equal(t, []string{fixtures.TenantNamespace}, st.Namespaces)
	snap := state.NewSnapshot(st)
	assert.NotNil(t, stateindex.Of(snap).DataVolume("cozy-public", fixtures.Golden))
	assert.NotNil(t, stateindex.Of(snap).PVC("cozy-public", fixtures.Golden))
	assert.NotNil(t, stateindex.Of(snap).PersistentVolume("pv-"+fixtures.Golden))
	assert.Nil(t, stateindex.Of(snap).PVC(fixtures.OtherNamespace, "data-postgres-0"), "a namespace no pool is in is not read")
	assert.Len(t, stateindex.Of(snap).ClonedDisks(fixtures.TenantNamespace, "kubernetes-"+pool.Name, fixtures.Golden), 1)

	res, err := plan.Plan(pool, fleet.DefaultCatalog(), snap)
	require.NoError(t, err)
	assert.Equal(t, plan.Clone, res.Source)
	assert.Empty(t, res.Warnings, "the reads cover everything the plan needs")
}

func TestFleetMakesConstantLists(t *testing.T) {
	count := func(pools, namespaces int) (int, int) {
		cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
		_, err := read(t, cs, dyn, plan.NeedsAll(fleet.BuiltinPools(pools, namespaces)))
		require.NoError(t, err)
		return requests(cs, dyn)
	}
	tenLists, tenGets := count(10, 10)
	fleetLists, fleetGets := count(1000, 100)
	assert.Equal(t, tenLists, fleetLists, "1,000 pools across 100 namespaces make as many LISTs as 10 pools")
	assert.Equal(t, 8, fleetLists, "one per kind")
	assert.Equal(t, [2]int{1, 1}, [2]int{tenGets, fleetGets},
		"cluster-wide lists answer the golden's gets; its volume is read by name, once per golden, not per pool")
}

// volumeGets names the PersistentVolumes read by name.
func volumeGets(cs *kubefake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if g, ok := a.(k8stesting.GetAction); ok && a.GetResource().Resource == "persistentvolumes" {
			out = append(out, g.GetName())
		}
	}
	return out
}

func TestForbiddenVolume(t *testing.T) {
	cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
	cs.PrependReactor("get", "persistentvolumes", forbidden("persistentvolumes"))
	st, err := read(t, cs, dyn, plan.Needs(pool))
	require.NoError(t, err, "a refusal is not an error")
	snap := state.NewSnapshot(st)
	assert.False(t, stateindex.Of(snap).Covers(state.PersistentVolume, "", "pv-"+fixtures.Golden), "a Forbidden volume is unknown, never absent")

	res, err := plan.Plan(pool, fleet.DefaultCatalog(), snap)
	require.NoError(t, err, "an unknown volume refuses nothing")
	assert.Contains(t, reasons(res.Warnings), guard.StateUnverified, "the guard that needed the golden's driver says so")
}

func TestAbsentGolden(t *testing.T) {
	var objs []client.Object
	for _, o := range fixtures.Cluster() {
		if o.GetNamespace() != "cozy-public" {
			objs = append(objs, o)
		}
	}
	cs, dyn := fixtures.ClientGo(objs...)
	st, err := read(t, cs, dyn, plan.Needs(pool))
	require.NoError(t, err)
	snap := state.NewSnapshot(st)
	for _, k := range []state.Kind{state.DataVolume, state.PersistentVolumeClaim} {
		assert.True(t, stateindex.Of(snap).Covers(k, "cozy-public", fixtures.Golden), "a NotFound golden %v is known absent", k)
	}
	assert.Nil(t, stateindex.Of(snap).DataVolume("cozy-public", fixtures.Golden))
}

func forbidden(resource string) k8stesting.ReactionFunc {
	return func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", errors.New("RBAC: access denied"))
	}
}

func TestForbiddenStorageClasses(t *testing.T) {
	cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
	cs.PrependReactor("list", "storageclasses", forbidden("storageclasses"))
	st, err := read(t, cs, dyn, plan.Needs(pool))
	require.NoError(t, err, "a refusal is not an error")
	assert.False(t, st.Observed.Has(state.StorageClass), "StorageClass stays unobserved, never empty")
	assert.True(t, st.Observed.Has(state.PersistentVolumeClaim|state.DataVolume|state.StorageProfile|state.CDI|state.CSIDriver))

	res, err := plan.Plan(pool, fleet.DefaultCatalog(), state.NewSnapshot(st))
	require.NoError(t, err, "an unknown kind refuses nothing")
	assert.Contains(t, reasons(res.Warnings), guard.StateUnverified, "the guards that needed the classes say so")

	t.Run("NeighbourAllowed", func(t *testing.T) {
		cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
		st, err := read(t, cs, dyn, plan.Needs(pool))
		require.NoError(t, err)
		res, _ := plan.Plan(pool, fleet.DefaultCatalog(), state.NewSnapshot(st))
		assert.NotContains(t, reasons(res.Warnings), guard.StateUnverified)
	})
}

func reasons(ws []guard.Warning) []guard.Reason {
	var out []guard.Reason
	for _, w := range ws {
		out = append(out, w.Reason)
	}
	return out
}

func TestCDINotInstalled(t *testing.T) {
	cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
	for _, r := range []string{"datavolumes", "storageprofiles", "cdis", "cdiconfigs"} {
		dyn.PrependReactor("*", r, func(a k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewGenericServerResponse(404, a.GetVerb(), a.GetResource().GroupResource(), "", "404 page not found", 0, true)
		})
	}
	st, err := read(t, cs, dyn, plan.Needs(pool))
	require.NoError(t, err)
	assert.Equal(t, (state.StorageClass | state.PersistentVolumeClaim | state.CSIDriver | state.VolumeSnapshotClass).String(), st.Observed.String(),
		"CDI's kinds are unknown, not empty, when the server does not serve them; the snapshotter's kind is not CDI's and stays observed")
	for _, a := range dyn.Actions() {
		assert.NotEqual(t, "get", a.GetVerb(), "the golden's DataVolume is not asked for once its kind is known unserved: %v", a)
	}
	_, gets := requests(cs, dyn)
	assert.Equal(t, 2, gets, "the golden's PVC and its volume, by name")
}

func TestNoDynamicClient(t *testing.T) {
	cs, _ := fixtures.ClientGo(fixtures.Cluster()...)
	st, err := clientgo.New(cs, nil).Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	assert.Equal(t, (state.StorageClass | state.PersistentVolumeClaim | state.CSIDriver).String(), st.Observed.String(),
		"without a dynamic client CDI's kinds are unknown")
}

func TestTransientErrors(t *testing.T) {
	cases := map[string]struct {
		reason   string
		resource string
		dynamic  bool
		err      error
		is       func(error) bool
	}{
		"Timeout": {
			reason:   "a timeout listing PVCs is retried",
			resource: "persistentvolumeclaims", err: apierrors.NewTimeoutError("slow", 2), is: apierrors.IsTimeout,
		},
		"ServerError": {
			reason:   "a 500 listing DataVolumes is retried",
			resource: "datavolumes", dynamic: true, err: apierrors.NewInternalError(errors.New("etcd")), is: apierrors.IsInternalError,
		},
		"ConnectionRefused": {
			reason:   "a refused connection is retried",
			resource: "storageclasses", err: errors.New("dial tcp 10.0.0.1:6443: connect: connection refused"),
			is: func(err error) bool { return err != nil },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
			fail := func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err }
			if tc.dynamic {
				dyn.PrependReactor("list", tc.resource, fail)
			} else {
				cs.PrependReactor("list", tc.resource, fail)
			}
			st, err := read(t, cs, dyn, plan.Needs(pool))
			assert.Nil(t, st)
			var re *clusterread.ReadError
			require.True(t, errors.As(err, &re), "%s: want *clusterread.ReadError, got %T %v", tc.reason, err, err)
			assert.True(t, tc.is(err), tc.reason)
			assert.Empty(t, fixtures.Refused(err), "a read error is not a refusal")
		})
	}
}

func TestPages(t *testing.T) {
	cs, dyn := fixtures.ClientGo()
	pvc := func(name string) corev1.PersistentVolumeClaim {
		return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: name}}
	}
	var tokens []string
	cs.PrependReactor("list", "persistentvolumeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).ListOptions
		tokens = append(tokens, opts.Continue)
		if opts.Continue == "" {
			l := &corev1.PersistentVolumeClaimList{Items: []corev1.PersistentVolumeClaim{pvc("a")}}
			l.Continue = "page-2"
			return true, l, nil
		}
		return true, &corev1.PersistentVolumeClaimList{Items: []corev1.PersistentVolumeClaim{pvc("b")}}, nil
	})
	st, err := read(t, cs, dyn, state.Request{Lists: []state.Ref{{Kind: state.PersistentVolumeClaim, Namespace: "t"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"", "page-2"}, tokens, "a list follows its continue token")
	require.Len(t, st.PersistentVolumeClaims, 2)
	assert.Equal(t, "PersistentVolumeClaim", st.PersistentVolumeClaims[1].Kind, "items get their type back")
}
