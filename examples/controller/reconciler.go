package controller

import (
	"context"
	"fmt"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// name is the controller's name, and the reporting controller of its
// events.
const name = "worker-disk-planner"

// poolGVK is the kind of a worker pool, read as unstructured: its spec is
// the kubernetes-nodes chart's values.
var poolGVK = schema.FromAPIVersionAndKind(plan.PoolAPIVersion, plan.PoolKind)

// Reconciler plans the disk-system DataVolume of each KubernetesNodes pool
// and records the outcome on it, as the condition DiskPlanned and as
// events. It never changes a disk: what it plans is for the chart to
// render, or for a person to read.
type Reconciler struct {
	// client reads the pools and writes their status: mgr.GetClient().
	client client.Client
	// state reads what each plan needs; over mgr.GetClient() the manager's
	// cache serves it, with no request to the API server per plan.
	state state.Reader
	// catalog is the kubernetes-worker-image package's catalog.
	catalog *catalog.Catalog
	// recorder records the events: mgr.GetEventRecorder("worker-disk-planner").
	recorder events.EventRecorder
	// timeout bounds one Reconcile, its reads and writes; 0 means
	// defaultTimeout. A reconcile that runs out is requeued with backoff.
	timeout time.Duration
}

// defaultTimeout bounds a Reconcile: 30 seconds.
const defaultTimeout = 30 * time.Second

// New returns a Reconciler over mgr's client, cache and event recorder.
// The manager's scheme must hold CDI's types (controllerruntime.AddToScheme).
func New(mgr ctrl.Manager, cat *catalog.Catalog) *Reconciler {
	return &Reconciler{
		client: mgr.GetClient(),
		// The cache itself, whose index gives a pool's plan its own disks
		// (the manager's client has none, and would list the namespace).
		// The Reviewer makes a kind this identity may not watch unknown at
		// once, rather than a read that waits on its informer until the
		// reconcile times out.
		state:    &controllerruntime.Reader{Client: mgr.GetCache(), Reviewer: mgr.GetClient()},
		catalog:  cat,
		recorder: mgr.GetEventRecorder(name),
	}
}

// +kubebuilder:rbac:groups=apps.cozystack.io,resources=kubernetesnodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps.cozystack.io,resources=kubernetesnodes/status,verbs=get;update
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims;persistentvolumes,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses;csidrivers,verbs=get;list;watch
// +kubebuilder:rbac:groups=cdi.kubevirt.io,resources=datavolumes;storageprofiles;cdis;cdiconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups=snapshot.storage.k8s.io,resources=volumesnapshotclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=selfsubjectaccessreviews,verbs=create

// Reconcile plans one pool, within 30 seconds. A read of the cluster that
// fails (a timeout, a cache not synced) returns its error, so the pool is
// requeued with backoff; a refusal is an outcome, recorded and not
// retried: the pool is planned again when it or the cluster changes.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	timeout := r.timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(poolGVK)
	if err := r.client.Get(ctx, req.NamespacedName, pool); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	res, err := r.plan(ctx, pool)
	if err != nil {
		return ctrl.Result{}, err
	}
	changed, err := r.record(ctx, pool, condition(res, pool.GetGeneration()))
	if err != nil || !changed {
		return ctrl.Result{}, err
	}
	// Events only when the condition changed: a resync repeats nothing.
	for _, e := range eventsOf(res) {
		r.recorder.Eventf(pool, nil, e.Type, e.Reason, "PlanDisk", "%s", e.Note)
	}
	return ctrl.Result{}, nil
}

// plan reads the pool's values as the chart does (what they get wrong is
// refused or warned like any finding), reads exactly what its plan needs,
// and plans it.
func (r *Reconciler) plan(ctx context.Context, obj *unstructured.Unstructured) (plan.Result, error) {
	pool, err := plan.PoolFromObject(obj.Object)
	if err != nil {
		return plan.Result{}, err
	}
	st, err := r.state.Read(ctx, plan.Needs(pool))
	if err != nil {
		return plan.Result{}, err
	}
	res, _ := plan.Plan(pool, r.catalog, state.NewSnapshot(st))
	return res, nil
}

// poolStatus is the part of a pool's status this controller writes.
type poolStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// record sets the condition on the pool's status, keeping every other
// status field and condition, and writes it when it changed. The write
// carries the resourceVersion read, so a concurrent writer makes it fail
// and the pool is planned again rather than a status overwritten.
func (r *Reconciler) record(ctx context.Context, pool *unstructured.Unstructured, c metav1.Condition) (bool, error) {
	status, _, err := unstructured.NestedMap(pool.Object, "status")
	if err != nil {
		return false, fmt.Errorf("status of pool %s/%s: %w", pool.GetNamespace(), pool.GetName(), err)
	}
	var st poolStatus
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(status, &st); err != nil {
		return false, fmt.Errorf("conditions of pool %s/%s: %w", pool.GetNamespace(), pool.GetName(), err)
	}
	if !meta.SetStatusCondition(&st.Conditions, c) {
		return false, nil
	}
	conds, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		return false, err
	}
	if status == nil {
		status = map[string]any{}
	}
	status["conditions"] = conds["conditions"]
	pool.Object["status"] = status
	return true, r.client.Status().Update(ctx, pool)
}

// SetupWithManager plans a pool when its spec changes, and every pool when
// a StorageClass or a golden changes: a default moved, a golden imported
// or gone changes plans whose pools did not change. A status write does
// not plan again (its generation stays).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(poolGVK)
	goldens := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == naming.GoldenNamespace })
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(pool, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&storagev1.StorageClass{}, handler.EnqueueRequestsFromMapFunc(r.everyPool)).
		Watches(&cdiv1.DataVolume{}, handler.EnqueueRequestsFromMapFunc(r.everyPool), builder.WithPredicates(goldens)).
		Complete(r)
}

// everyPool lists every pool from the cache.
func (r *Reconciler) everyPool(ctx context.Context, _ client.Object) []ctrl.Request {
	pools := &unstructured.UnstructuredList{}
	pools.SetGroupVersionKind(poolGVK.GroupVersion().WithKind(poolGVK.Kind + "List"))
	if err := r.client.List(ctx, pools); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list pools to plan again")
		return nil
	}
	out := make([]ctrl.Request, len(pools.Items))
	for i, p := range pools.Items {
		out[i] = ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&p)}
	}
	return out
}
