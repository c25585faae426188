package controller_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/examples/controller"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// run starts a manager with the reconciler on the suite's API server, as
// a controller's main would, and stops it when the test ends.
func run(t *testing.T, e *apiserver.Env, cat *catalog.Catalog) {
	t.Helper()
	mgr, err := ctrl.NewManager(e.Config, ctrl.Options{
		Scheme:  apiserver.Scheme(),
		Metrics: metricsserver.Options{BindAddress: "0"},
		// Pools are unstructured: cache them too, or every read of one
		// is a request.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		// Each test starts its own manager with the same controller.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, controller.New(mgr, cat).SetupWithManager(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
}

// newPool creates a KubernetesNodes <cluster>-md0 in namespace with
// values as its spec, and deletes it when the test ends.
func newPool(t *testing.T, e *apiserver.Env, namespace, cluster string, values map[string]any) *unstructured.Unstructured {
	t.Helper()
	e.Namespace(t, namespace)
	pool := &unstructured.Unstructured{Object: map[string]any{"spec": values}}
	pool.SetGroupVersionKind(controller.PoolGVK)
	pool.SetNamespace(namespace)
	pool.SetName(cluster + "-md0")
	require.NoError(t, e.Client.Create(context.Background(), pool))
	t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(e.Client.Delete(context.Background(), pool))) })
	return pool
}

// setSpec sets one value of the pool's spec.
func setSpec(t *testing.T, e *apiserver.Env, pool *unstructured.Unstructured, key string, value any) {
	t.Helper()
	patch := map[string]any{"spec": map[string]any{key: value}}
	require.NoError(t, e.Client.Patch(context.Background(), pool, client.RawPatch("application/merge-patch+json", mustJSON(t, patch))))
}

// expect waits until the pool's DiskPlanned condition has status and
// reason, for the pool's current generation.
func expect(t *testing.T, e *apiserver.Env, pool *unstructured.Unstructured, status metav1.ConditionStatus, reason string) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(controller.PoolGVK)
		require.NoError(c, e.Client.Get(context.Background(), client.ObjectKeyFromObject(pool), got))
		cond := condition(c, got)
		require.NotNil(c, cond, "the pool has a %s condition", controller.ConditionType)
		assert.Equal(c, got.GetGeneration(), cond.ObservedGeneration, "the condition is about the pool's current spec")
		assert.Equal(c, status, cond.Status)
		assert.Equal(c, reason, cond.Reason)
	}, 20*time.Second, 50*time.Millisecond)
}

func condition(c require.TestingT, pool *unstructured.Unstructured) *metav1.Condition {
	raw, _, err := unstructured.NestedSlice(pool.Object, "status", "conditions")
	require.NoError(c, err)
	var conds []metav1.Condition
	for _, r := range raw {
		var cond metav1.Condition
		require.NoError(c, fromMap(r, &cond))
		conds = append(conds, cond)
	}
	return meta.FindStatusCondition(conds, controller.ConditionType)
}

// expectEvent waits until the pool has an event of type and reason.
func expectEvent(t *testing.T, e *apiserver.Env, pool *unstructured.Unstructured, typ, reason string) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var list eventsv1.EventList
		require.NoError(c, e.Client.List(context.Background(), &list, client.InNamespace(pool.GetNamespace())))
		var seen []string
		for _, ev := range list.Items {
			if ev.Regarding.Name == pool.GetName() && ev.Regarding.Kind == controller.PoolGVK.Kind {
				seen = append(seen, ev.Type+" "+ev.Reason)
				assert.Equal(c, controller.Name, ev.ReportingController)
			}
		}
		assert.Contains(c, seen, typ+" "+reason)
	}, 20*time.Second, 50*time.Millisecond)
}

// A pool on the golden's class is planned; moved to another class it is
// refused StorageClassMismatch; moved back, the condition is planned
// again.
func TestPoolFollowsItsClass(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	run(t, e, fleet.DefaultCatalog())
	pool := newPool(t, e, "tenant-class", "demo", map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}})

	expect(t, e, pool, metav1.ConditionTrue, controller.ReasonPlanned)
	expectEvent(t, e, pool, "Normal", controller.ReasonPlanned)

	setSpec(t, e, pool, "storageClass", fixtures.LocalClass)
	expect(t, e, pool, metav1.ConditionFalse, "StorageClassMismatch")
	expectEvent(t, e, pool, "Warning", "StorageClassMismatch")

	setSpec(t, e, pool, "storageClass", fixtures.ReplicatedClass)
	expect(t, e, pool, metav1.ConditionTrue, controller.ReasonPlanned)
}

// A planned pool whose golden is not imported yet records its warning as
// an event.
func TestWarningsAreEvents(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	v := catalog.Default()
	v.Enabled = true
	v.Images = append(v.Images, catalog.Image{Flavor: catalog.Flavor{SchematicID: chartdefaults.SchematicID, Version: "v1.13.5"}})
	run(t, e, catalog.Compile(v))
	pool := newPool(t, e, "tenant-pending", "demo", map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{"version": "v1.13.5"}}})

	expect(t, e, pool, metav1.ConditionTrue, controller.ReasonPlanned)
	expectEvent(t, e, pool, "Warning", "GoldenPending")
}

// Moving the cluster default plans every pool again, though none changed:
// a pool on "" without disks follows the default, as its first clone
// would.
func TestDefaultClassMovePlansAgain(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	run(t, e, fleet.DefaultCatalog())
	pool := newPool(t, e, "tenant-default", "demo", map[string]any{"cluster": "demo", "storageClass": "", "osImage": map[string]any{"builtin": map[string]any{}}})
	expect(t, e, pool, metav1.ConditionTrue, controller.ReasonPlanned)

	moveDefault(t, e, fixtures.ReplicatedClass, fixtures.LocalClass)
	t.Cleanup(func() { moveDefault(t, e, fixtures.LocalClass, fixtures.ReplicatedClass) })
	expect(t, e, pool, metav1.ConditionFalse, "StorageClassMismatch")
}

// moveDefault moves the GA default annotation from one class to another.
func moveDefault(t *testing.T, e *apiserver.Env, from, to string) {
	t.Helper()
	for class, value := range map[string]any{from: nil, to: "true"} {
		sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}}
		patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{storage.DefaultAnnotation: value}}}
		require.NoError(t, e.Client.Patch(context.Background(), sc, client.RawPatch("application/merge-patch+json", mustJSON(t, patch))))
	}
}

// Reconcile called directly, as the manager does: a failed read returns
// its error (requeue with backoff); a refusal, even of values of the wrong
// type, is recorded and returns none.
func TestReconcileResults(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	timeout := interceptor.Funcs{List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
		return apierrors.NewTimeoutError("the cache did not sync", 1)
	}}
	reconciler := func(funcs interceptor.Funcs, st state.Reader) *controller.Reconciler {
		if st == nil {
			st = controllerruntime.New(interceptor.NewClient(withWatch(t, e), funcs))
		}
		return controller.NewReconciler(e.Client, st, fleet.DefaultCatalog(), events.NewFakeRecorder(16), 0)
	}
	builtin := map[string]any{"builtin": map[string]any{}}
	unreachable := errors.New("the cluster is unreachable")
	cases := map[string]struct {
		reason  string
		values  map[string]any
		funcs   interceptor.Funcs
		state   state.Reader // nil: controllerruntime's, over funcs
		requeue bool
		cause   error // of a requeue; nil: the interceptor's timeout, seen through the reader's error
		status  metav1.ConditionStatus
		why     string
	}{
		"planned":    {reason: "a plan is recorded", values: map[string]any{"cluster": "r", "osImage": builtin}, status: metav1.ConditionTrue, why: controller.ReasonPlanned},
		"refused":    {reason: "a refusal is recorded, not retried", values: map[string]any{"cluster": "r", "storageClass": fixtures.LocalClass, "osImage": builtin}, status: metav1.ConditionFalse, why: "StorageClassMismatch"},
		"bad values": {reason: "values of the wrong type are a refusal", values: map[string]any{"cluster": "r", "osImage": "builtin"}, status: metav1.ConditionFalse, why: "InvalidValue"},
		"read fails": {reason: "a read that times out is retried, nothing recorded", values: map[string]any{"cluster": "r", "osImage": builtin}, funcs: timeout, requeue: true},
		"any state.Reader": {
			reason: "the state is read through any state.Reader, and its failure is retried", values: map[string]any{"cluster": "r", "osImage": builtin},
			state: readerFunc(func(context.Context, state.Request) (*state.State, error) { return nil, unreachable }), requeue: true, cause: unreachable,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pool := newPool(t, e, "tenant-reconcile", "r", tc.values)
			r := reconciler(tc.funcs, tc.state)
			res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(pool)})
			assert.Equal(t, ctrl.Result{}, res, tc.reason)
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(controller.PoolGVK)
			require.NoError(t, e.Client.Get(context.Background(), client.ObjectKeyFromObject(pool), got))
			cond := condition(t, got)
			if tc.requeue {
				if tc.cause != nil {
					assert.ErrorIs(t, err, tc.cause, tc.reason)
				} else {
					assert.True(t, apierrors.IsTimeout(err), "%s: got %v", tc.reason, err)
				}
				assert.Nil(t, cond, tc.reason)
				return
			}
			require.NoError(t, err, tc.reason)
			require.NotNil(t, cond, tc.reason)
			assert.Equal(t, tc.status, cond.Status, tc.reason)
			assert.Equal(t, tc.why, cond.Reason, tc.reason)
		})
	}
}
