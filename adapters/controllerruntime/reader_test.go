package controllerruntime_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

var pool = fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)

// byName is what a pool's read observes: every kind, but the golden's
// volume, which is read by name and observes no more than itself.
const byName = state.PlanKinds &^ state.PersistentVolume

// counted counts the reads that reach the client.
func counted(n *int) interceptor.Funcs {
	return interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			*n++
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			*n++
			return c.List(ctx, list, opts...)
		},
	}
}

func TestOnePool(t *testing.T) {
	var n int
	c := fixtures.ControllerRuntime(counted(&n), fixtures.Cluster()...)
	st, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	assert.Equal(t, 11, n, "one pool: one read per object or kind it needs, "+
		"8 lists (6 cluster-scoped kinds, the namespace's PVCs and DataVolumes) and 3 gets (the golden's DataVolume, PVC and volume)")
	assert.Equal(t, byName, st.Observed)
	assert.Equal(t, []string{fixtures.TenantNamespace}, st.Namespaces)
	snap := state.NewSnapshot(st)
	assert.NotNil(t, stateindex.Of(snap).PersistentVolume("pv-"+fixtures.Golden), "the golden's volume, by the name its claim gives")

	res, err := plan.Plan(pool, fleet.DefaultCatalog(), snap)
	require.NoError(t, err)
	assert.Equal(t, plan.Clone, res.Source)
	assert.Empty(t, res.Warnings)
}

func TestFleet(t *testing.T) {
	var n int
	c := fixtures.ControllerRuntime(counted(&n), fixtures.Cluster()...)
	_, err := controllerruntime.New(c).Read(context.Background(), plan.NeedsAll(fleet.BuiltinPools(1000, 100)))
	require.NoError(t, err)
	assert.Equal(t, 9, n, "a fleet reads one list per kind, and its golden's volume by name, once")
}

func TestForbiddenVolume(t *testing.T) {
	c := fixtures.ControllerRuntime(fail[*corev1.PersistentVolume](apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumes"}, "", errors.New("rbac"))), fixtures.Cluster()...)
	st, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err, "a refusal is not an error")
	snap := state.NewSnapshot(st)
	assert.False(t, stateindex.Of(snap).Covers(state.PersistentVolume, "", "pv-"+fixtures.Golden), "a Forbidden volume is unknown, never absent")
	res, err := plan.Plan(pool, fleet.DefaultCatalog(), snap)
	require.NoError(t, err, "an unknown volume refuses nothing")
	var kinds []string
	for _, w := range res.Warnings {
		if w.Reason == guard.StateUnverified {
			kinds = append(kinds, w.Kind)
		}
	}
	assert.Contains(t, kinds, "PersistentVolume", "the guard that needed the golden's driver names the kind")
}

// fail makes every read of objects of type T fail with err.
func fail[T client.Object](err error) interceptor.Funcs {
	return interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(T); ok {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := itemOf(list).(T); ok {
				return err
			}
			return c.List(ctx, list, opts...)
		},
	}
}

// itemOf is a new item of list's type.
func itemOf(list client.ObjectList) runtime.Object {
	switch list.(type) {
	case *storagev1.StorageClassList:
		return &storagev1.StorageClass{}
	case *cdiv1.DataVolumeList:
		return &cdiv1.DataVolume{}
	case *cdiv1.StorageProfileList:
		return &cdiv1.StorageProfile{}
	case *cdiv1.CDIList:
		return &cdiv1.CDI{}
	}
	return nil
}

func TestRefusalsLeaveKindsUnknown(t *testing.T) {
	noMatch := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "DataVolume"}}
	cases := map[string]struct {
		reason string
		funcs  interceptor.Funcs
		want   state.Kind
	}{
		"ForbiddenStorageClasses": {
			reason: "a Forbidden leaves StorageClass unobserved",
			funcs:  fail[*storagev1.StorageClass](apierrors.NewForbidden(schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}, "", errors.New("rbac"))),
			want:   byName &^ state.StorageClass,
		},
		"CRDMissing": {
			reason: "a kind the RESTMapper does not know (CDI not installed) is unknown, not empty",
			funcs:  fail[*cdiv1.DataVolume](noMatch),
			want:   byName &^ state.DataVolume,
		},
		"ResourceNotFound": {
			reason: "a list's NotFound is the resource missing: unknown",
			funcs:  fail[*cdiv1.CDI](apierrors.NewNotFound(schema.GroupResource{Group: "cdi.kubevirt.io", Resource: "cdis"}, "")),
			want:   byName &^ state.CDI,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fixtures.ControllerRuntime(tc.funcs, fixtures.Cluster()...)
			st, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
			require.NoError(t, err, tc.reason)
			assert.Equal(t, tc.want.String(), st.Observed.String(), tc.reason)
		})
	}
}

func TestForbiddenStorageClassesWarns(t *testing.T) {
	c := fixtures.ControllerRuntime(fail[*storagev1.StorageClass](apierrors.NewForbidden(schema.GroupResource{Resource: "storageclasses"}, "", errors.New("rbac"))), fixtures.Cluster()...)
	st, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	res, err := plan.Plan(pool, fleet.DefaultCatalog(), state.NewSnapshot(st))
	require.NoError(t, err, "never refused for what could not be read")
	var reasons []guard.Reason
	for _, w := range res.Warnings {
		reasons = append(reasons, w.Reason)
	}
	assert.Contains(t, reasons, guard.StateUnverified)
}

func TestNotFoundGoldenIsAbsent(t *testing.T) {
	var objs []client.Object
	for _, o := range fixtures.Cluster() {
		if o.GetNamespace() != "cozy-public" {
			objs = append(objs, o)
		}
	}
	st, err := controllerruntime.New(fixtures.ControllerRuntime(interceptor.Funcs{}, objs...)).Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	snap := state.NewSnapshot(st)
	assert.True(t, stateindex.Of(snap).Covers(state.DataVolume, "cozy-public", fixtures.Golden), "a NotFound golden is known absent")
	assert.True(t, stateindex.Of(snap).Covers(state.PersistentVolumeClaim, "cozy-public", fixtures.Golden))
	assert.Nil(t, stateindex.Of(snap).DataVolume("cozy-public", fixtures.Golden))
}

func TestTransientErrors(t *testing.T) {
	cases := map[string]struct {
		reason string
		funcs  interceptor.Funcs
		is     func(error) bool
	}{
		"TimeoutOnList": {
			reason: "a timeout is requeued",
			funcs:  fail[*cdiv1.StorageProfile](apierrors.NewTimeoutError("slow", 1)),
			is:     apierrors.IsTimeout,
		},
		"TimeoutOnGet": {
			reason: "a timeout reading the golden is requeued, not taken for its absence",
			funcs:  fail[*cdiv1.DataVolume](context.DeadlineExceeded),
			is:     func(err error) bool { return errors.Is(err, context.DeadlineExceeded) },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fixtures.ControllerRuntime(tc.funcs, fixtures.Cluster()...)
			_, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
			var re *clusterread.ReadError
			require.True(t, errors.As(err, &re), "%s: got %T %v", tc.reason, err, err)
			assert.True(t, tc.is(err), tc.reason)
		})
	}
}

func TestSchemeWithoutCDI(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(s))
	c := fake.NewClientBuilder().WithScheme(s).Build()
	_, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
	var re *clusterread.ReadError
	require.True(t, errors.As(err, &re), "a client that cannot hold CDI's types is a bug to fix, not an unknown kind to warn about forever; got %v", err)
	assert.Equal(t, state.DataVolume, re.Kind)

	t.Run("AddToScheme", func(t *testing.T) {
		s := runtime.NewScheme()
		require.NoError(t, controllerruntime.AddToScheme(s))
		c := fake.NewClientBuilder().WithScheme(s).Build()
		st, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
		require.NoError(t, err, "AddToScheme registers every type the Reader reads")
		assert.Equal(t, byName, st.Observed)
	})
}
