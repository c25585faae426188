package controller

import (
	"context"
	"fmt"
	"slices"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

type queue = workqueue.TypedRateLimitingInterface[ref]

// affects says, of the pool deps d, whether a change touches it.
type affects func(d deps) bool

// watch wires every kind whose change can move a verdict to the pools it
// can move.
func (r *reconciler) watch(mgr manager.Manager) error {
	c := mgr.GetCache()
	b := builder.TypedControllerManagedBy[ref](mgr).Named(Name)
	log := mgr.GetLogger().WithName(Name)
	// A kind the server does not serve (no VolumeSnapshotClass CRD, no
	// Flux) is not watched: every plan takes it as unknown.
	watch := func(obj client.Object, src func() source.TypedSource[ref]) {
		gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
		if err == nil {
			_, err = mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		}
		if err == nil {
			err = r.mayWatch(mgr, gvk)
		}
		if err != nil {
			log.Info("kind not watched: plans take it as unknown", "kind", gvk.String(), "reason", err.Error())
			return
		}
		b = b.WatchesRawSource(src())
	}

	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(poolGVK)
	watch(pool, func() source.TypedSource[ref] {
		return source.TypedKind[*unstructured.Unstructured, ref](c, pool, r.objects(kubernetesNodes))
	})
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(helmReleaseGVK)
	watch(hr, func() source.TypedSource[ref] {
		return source.TypedKind[*unstructured.Unstructured, ref](c, hr, r.releases())
	})

	watch(&storagev1.StorageClass{}, func() source.TypedSource[ref] {
		return source.TypedKind[*storagev1.StorageClass, ref](c, &storagev1.StorageClass{}, changes(r, "StorageClass",
			func(o *storagev1.StorageClass) affects {
				def := isDefault(o)
				return func(d deps) bool { return slices.Contains(d.classes, o.Name) || d.any || def && d.defaultUsed }
			}, true))
	})
	watch(&cdiv1.StorageProfile{}, func() source.TypedSource[ref] {
		return source.TypedKind[*cdiv1.StorageProfile, ref](c, &cdiv1.StorageProfile{}, changes(r, "StorageProfile",
			func(o *cdiv1.StorageProfile) affects {
				return func(d deps) bool { return slices.Contains(d.classes, o.Name) || d.any }
			}, false))
	})
	watch(&storagev1.CSIDriver{}, func() source.TypedSource[ref] {
		return source.TypedKind[*storagev1.CSIDriver, ref](c, &storagev1.CSIDriver{}, changes(r, "CSIDriver",
			func(o *storagev1.CSIDriver) affects {
				return func(d deps) bool { return slices.Contains(d.drivers, o.Name) || d.any }
			}, false))
	})
	watch(&snapshotv1.VolumeSnapshotClass{}, func() source.TypedSource[ref] {
		return source.TypedKind[*snapshotv1.VolumeSnapshotClass, ref](c, &snapshotv1.VolumeSnapshotClass{}, changes(r, "VolumeSnapshotClass",
			func(o *snapshotv1.VolumeSnapshotClass) affects {
				return func(d deps) bool { return slices.Contains(d.drivers, o.Driver) || d.any }
			}, false))
	})
	watch(&cdiv1.CDI{}, func() source.TypedSource[ref] {
		return source.TypedKind[*cdiv1.CDI, ref](c, &cdiv1.CDI{}, changes(r, "CDI",
			func(*cdiv1.CDI) affects { return func(deps) bool { return true } }, false))
	})
	watch(&cdiv1.CDIConfig{}, func() source.TypedSource[ref] {
		return source.TypedKind[*cdiv1.CDIConfig, ref](c, &cdiv1.CDIConfig{}, changes(r, "CDIConfig",
			func(*cdiv1.CDIConfig) affects { return func(deps) bool { return true } }, false))
	})
	watch(&cdiv1.DataVolume{}, func() source.TypedSource[ref] {
		return source.TypedKind[*cdiv1.DataVolume, ref](c, &cdiv1.DataVolume{}, changes(r, "DataVolume", disk[*cdiv1.DataVolume], true))
	})
	watch(&corev1.PersistentVolumeClaim{}, func() source.TypedSource[ref] {
		return source.TypedKind[*corev1.PersistentVolumeClaim, ref](c, &corev1.PersistentVolumeClaim{}, changes(r, "PersistentVolumeClaim", disk[*corev1.PersistentVolumeClaim], true))
	})
	return b.Complete(r)
}

// mayWatch is an error unless this identity may list and watch the kind
// in every namespace: an informer it may not start would keep the
// controller from starting at all.
func (r *reconciler) mayWatch(mgr manager.Manager, gvk schema.GroupVersionKind) error {
	m, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	for _, verb := range []string{"list", "watch"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: gvk.Group, Resource: m.Resource.Resource, Verb: verb},
		}}
		if err := mgr.GetClient().Create(context.Background(), review); err != nil {
			return fmt.Errorf("ask whether it may %s %s: %w", verb, m.Resource.Resource, err)
		}
		if !review.Status.Allowed {
			return fmt.Errorf("this identity may not %s %s in every namespace", verb, m.Resource.Resource)
		}
	}
	return nil
}

// isDefault reports whether a class carries a default annotation (or had
// one: the old version of an update is asked too).
func isDefault(c *storagev1.StorageClass) bool {
	a := c.Annotations
	return a[storage.VirtDefaultAnnotation] == "true" || a[storage.DefaultAnnotation] == "true" || a[storage.BetaDefaultAnnotation] == "true"
}

// disk is what a DataVolume's or a PVC's change affects: the pools that
// clone it when it is a golden, the pool it is a disk of otherwise.
func disk[T client.Object](o T) affects {
	ns, name := o.GetNamespace(), o.GetName()
	if ns == naming.GoldenNamespace {
		return func(d deps) bool { return d.golden == name }
	}
	pool := o.GetAnnotations()[naming.PoolAnnotation]
	if pool == "" {
		return func(deps) bool { return false }
	}
	return func(d deps) bool { return d.namespace == ns && d.capiName == pool }
}

// changes enqueues the pools a change to an object of kind affects, as of
// the object before and after it. An update that leaves every field the
// cache keeps as it was (a resync, a field no plan reads) affects nothing.
// With goldens, it enqueues the goldens too when the object is a golden or
// may change one's render (a class).
func changes[T client.Object](r *reconciler, kind string, of func(T) affects, goldensToo bool) handler.TypedEventHandler[T, ref] {
	enqueue := func(q queue, objs ...T) {
		at := time.Now()
		var fs []affects
		golden := false
		for _, o := range objs {
			fs = append(fs, of(o))
			golden = golden || kind == "StorageClass" || o.GetNamespace() == naming.GoldenNamespace
		}
		r.enqueue(q, at, kind, func(d deps) bool {
			for _, f := range fs {
				if f(d) {
					return true
				}
			}
			return false
		})
		if goldensToo && golden {
			r.stamp(goldens, at, kind)
			q.Add(goldens)
		}
	}
	return handler.TypedFuncs[T, ref]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[T], q queue) { enqueue(q, e.Object) },
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[T], q queue) { enqueue(q, e.Object) },
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[T], q queue) {
			if same(e.ObjectOld, e.ObjectNew) {
				return
			}
			enqueue(q, e.ObjectOld, e.ObjectNew)
		},
	}
}

// same reports whether two versions of an object differ in nothing but
// their resourceVersion, generation and managedFields.
func same[T client.Object](a, b T) bool {
	x, y := a.DeepCopyObject().(T), b.DeepCopyObject().(T)
	for _, o := range []T{x, y} {
		o.SetResourceVersion("")
		o.SetGeneration(0)
		o.SetManagedFields(nil)
	}
	return equality.Semantic.DeepEqual(x, y)
}

// enqueue adds every known pool whose deps a change affects, stamping when
// the change was seen.
func (r *reconciler) enqueue(q queue, at time.Time, trigger string, f affects) {
	r.mu.Lock()
	var refs []ref
	for k, e := range r.pools {
		if f(e.deps) {
			refs = append(refs, k)
			if _, ok := r.pending[k]; !ok {
				r.pending[k] = pending{at: at, trigger: trigger}
			}
		}
	}
	r.mu.Unlock()
	for _, k := range refs {
		q.Add(k)
	}
}

func (r *reconciler) stamp(k ref, at time.Time, trigger string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.pending[k]; !ok {
		r.pending[k] = pending{at: at, trigger: trigger}
	}
}

// objects enqueues a pool when it is created, deleted, or its spec
// changes (its generation).
func (r *reconciler) objects(kind string) handler.TypedEventHandler[*unstructured.Unstructured, ref] {
	key := func(o *unstructured.Unstructured) ref {
		return ref{Kind: kind, Namespace: o.GetNamespace(), Name: o.GetName()}
	}
	return handler.TypedFuncs[*unstructured.Unstructured, ref]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[*unstructured.Unstructured], q queue) {
			q.Add(key(e.Object))
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[*unstructured.Unstructured], q queue) {
			q.Add(key(e.Object))
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[*unstructured.Unstructured], q queue) {
			if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
				k := key(e.ObjectNew)
				r.stamp(k, time.Now(), kind)
				q.Add(k)
			}
		},
	}
}

// releases enqueues every pool and the goldens when the catalog release
// changes, and a kubernetes-nodes release as a pool.
func (r *reconciler) releases() handler.TypedEventHandler[*unstructured.Unstructured, ref] {
	pools := r.objects(helmRelease)
	isCatalog := func(o *unstructured.Unstructured) bool {
		k := r.opts.CatalogRelease
		return k.Name != "" && o.GetNamespace() == k.Namespace && o.GetName() == k.Name
	}
	all := func(q queue) {
		at := time.Now()
		r.enqueue(q, at, "CatalogRelease", func(deps) bool { return true })
		r.stamp(goldens, at, "CatalogRelease")
		q.Add(goldens)
	}
	return handler.TypedFuncs[*unstructured.Unstructured, ref]{
		CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[*unstructured.Unstructured], q queue) {
			if isCatalog(e.Object) {
				all(q)
				return
			}
			pools.Create(ctx, e, q)
		},
		DeleteFunc: func(ctx context.Context, e event.TypedDeleteEvent[*unstructured.Unstructured], q queue) {
			if isCatalog(e.Object) {
				all(q)
				return
			}
			pools.Delete(ctx, e, q)
		},
		UpdateFunc: func(ctx context.Context, e event.TypedUpdateEvent[*unstructured.Unstructured], q queue) {
			if isCatalog(e.ObjectNew) {
				if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
					all(q)
				}
				return
			}
			pools.Update(ctx, e, q)
		},
	}
}
