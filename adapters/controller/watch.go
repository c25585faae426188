package controller

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

type queue = workqueue.TypedRateLimitingInterface[ref]

// affects says, of the pool deps d, whether a change touches it.
type affects func(d deps) bool

// cacheSyncTimeout bounds the first fill of the controller's informers. A
// cluster of 100,000 worker disks took over two minutes to list on a loaded
// control plane (controller-runtime's default, after which the controller
// stops and the pod restarts into the same wait for ever).
const cacheSyncTimeout = 10 * time.Minute

// watch wires every kind whose change can move a verdict to the pools it
// can move.
func (r *reconciler) watch(mgr manager.Manager) error {
	c := mgr.GetCache()
	// Reconciles of different pools run side by side, as many as the
	// process has cores (two at least: a reconcile may wait on the API
	// server for the catalog's values); one pool is never planned twice
	// at once. Its informers get cacheSyncTimeout to fill.
	b := builder.TypedControllerManagedBy[ref](mgr).Named(Name).
		WithOptions(crcontroller.TypedOptions[ref]{
			MaxConcurrentReconciles: max(2, runtime.GOMAXPROCS(0)),
			CacheSyncTimeout:        cacheSyncTimeout,
		})
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
		return source.TypedKind[*unstructured.Unstructured, ref](c, pool, r.objects(kubernetesNodes, generationChanged))
	})
	vmd := &unstructured.Unstructured{}
	vmd.SetGroupVersionKind(vmDiskGVK)
	watch(vmd, func() source.TypedSource[ref] {
		// cozystack-api serves VMDisks from their releases, and need not
		// move a generation: the spec is what is compared.
		return source.TypedKind[*unstructured.Unstructured, ref](c, vmd, r.objects(vmDisk, specChanged))
	})
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(helmReleaseGVK)
	watch(hr, func() source.TypedSource[ref] {
		return source.TypedKind[*unstructured.Unstructured, ref](c, hr, r.releases())
	})
	b = b.WatchesRawSource(source.TypedChannel[*metav1.PartialObjectMetadata, ref](r.watches.events, r.valuesChanges()))

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
			func(*cdiv1.CDI) affects { return func(d deps) bool { return d.cluster } }, false))
	})
	watch(&cdiv1.CDIConfig{}, func() source.TypedSource[ref] {
		return source.TypedKind[*cdiv1.CDIConfig, ref](c, &cdiv1.CDIConfig{}, changes(r, "CDIConfig",
			func(*cdiv1.CDIConfig) affects { return func(d deps) bool { return d.cluster } }, false))
	})
	watch(&cdiv1.DataVolume{}, func() source.TypedSource[ref] {
		// client.Object, not the typed disk: a cache that holds worker
		// disks compactly hands records of them.
		return source.TypedKind[client.Object, ref](c, &cdiv1.DataVolume{}, changes(r, "DataVolume", disk[client.Object], true))
	})
	watch(&corev1.PersistentVolumeClaim{}, func() source.TypedSource[ref] {
		return source.TypedKind[client.Object, ref](c, &corev1.PersistentVolumeClaim{}, changes(r, "PersistentVolumeClaim", disk[client.Object], true))
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
// clone it when it is a golden, the pool it is a disk of otherwise, and
// the VM disks that read it by name (their own DataVolume, their source).
func disk[T client.Object](o T) affects {
	ns, name := o.GetNamespace(), o.GetName()
	key := ns + "/" + name
	pool := o.GetAnnotations()[naming.PoolAnnotation]
	return func(d deps) bool {
		switch {
		case d.disk:
			return slices.Contains(d.objects, key)
		case ns == naming.GoldenNamespace:
			return d.golden == name
		}
		return pool != "" && d.namespace == ns && d.capiName == pool
	}
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
			if o.GetNamespace() == "" || o.GetNamespace() == naming.GoldenNamespace {
				// What the plans share is read again.
				r.epoch.changed()
			}
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
	for k, e := range r.planned {
		if f(e.deps) {
			refs = append(refs, k)
			r.pend(k, at, trigger)
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
	r.pend(k, at, trigger)
}

func generationChanged(a, b *unstructured.Unstructured) bool {
	return a.GetGeneration() != b.GetGeneration()
}

func specChanged(a, b *unstructured.Unstructured) bool {
	return !equality.Semantic.DeepEqual(a.Object["spec"], b.Object["spec"])
}

// objects enqueues a pool or a VM disk when it is created, deleted, or its
// spec changes (as changed tells).
func (r *reconciler) objects(kind string, changed func(old, cur *unstructured.Unstructured) bool) handler.TypedEventHandler[*unstructured.Unstructured, ref] {
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
			if changed(e.ObjectOld, e.ObjectNew) {
				k := key(e.ObjectNew)
				r.stamp(k, time.Now(), kind)
				q.Add(k)
			}
		},
	}
}

// releases enqueues every pool and the goldens when the catalog release
// changes, every VM disk when the image catalog's release does (each also
// names the ConfigMaps and Secrets to watch), a kubernetes-nodes release as
// a pool and a vm-disk release as a VM disk.
func (r *reconciler) releases() handler.TypedEventHandler[*unstructured.Unstructured, ref] {
	pools := r.objects(helmRelease, generationChanged)
	disks := r.objects(vmDiskRelease, generationChanged)
	catalogs := func(o *unstructured.Unstructured) (types.NamespacedName, bool) {
		k := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
		return k, k == catalogrelease.Images || (r.opts.CatalogRelease.Name != "" && k == r.opts.CatalogRelease)
	}
	of := func(o *unstructured.Unstructured) handler.TypedEventHandler[*unstructured.Unstructured, ref] {
		if isVMDiskRelease(o) {
			return disks
		}
		return pools
	}
	return handler.TypedFuncs[*unstructured.Unstructured, ref]{
		CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[*unstructured.Unstructured], q queue) {
			if k, ok := catalogs(e.Object); ok {
				r.watches.set(k, e.Object)
				r.catalogChanged(q, k, "CatalogRelease")
				return
			}
			of(e.Object).Create(ctx, e, q)
		},
		DeleteFunc: func(ctx context.Context, e event.TypedDeleteEvent[*unstructured.Unstructured], q queue) {
			if k, ok := catalogs(e.Object); ok {
				r.watches.set(k, nil)
				r.catalogChanged(q, k, "CatalogRelease")
				return
			}
			of(e.Object).Delete(ctx, e, q)
		},
		UpdateFunc: func(ctx context.Context, e event.TypedUpdateEvent[*unstructured.Unstructured], q queue) {
			if k, ok := catalogs(e.ObjectNew); ok {
				if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
					r.watches.set(k, e.ObjectNew)
					r.catalogChanged(q, k, "CatalogRelease")
				}
				return
			}
			if isVMDiskRelease(e.ObjectOld) != isVMDiskRelease(e.ObjectNew) {
				// Its labels made it a VM disk's release, or no longer
				// one: plan it as both, and each keeps what it is.
				pools.Delete(ctx, event.TypedDeleteEvent[*unstructured.Unstructured]{Object: e.ObjectOld}, q)
				disks.Delete(ctx, event.TypedDeleteEvent[*unstructured.Unstructured]{Object: e.ObjectOld}, q)
				of(e.ObjectNew).Create(ctx, event.TypedCreateEvent[*unstructured.Unstructured]{Object: e.ObjectNew}, q)
				return
			}
			of(e.ObjectNew).Update(ctx, e, q)
		},
	}
}

// catalogChanged enqueues what a catalog release's values move: the
// image catalog's, every VM disk that clones an image; the worker
// catalog's, every pool and the goldens.
func (r *reconciler) catalogChanged(q queue, release types.NamespacedName, trigger string) {
	at := time.Now()
	if release == catalogrelease.Images {
		r.images.changed()
		r.enqueue(q, at, trigger, func(d deps) bool { return d.disk && d.image })
	}
	if r.opts.CatalogRelease.Name != "" && release == r.opts.CatalogRelease {
		r.catalogs.changed()
		r.enqueue(q, at, trigger, func(d deps) bool { return !d.disk })
		r.stamp(goldens, at, trigger)
		q.Add(goldens)
	}
}

// valuesChanges plans again what the releases that name a changed
// ConfigMap or Secret move.
func (r *reconciler) valuesChanges() handler.TypedEventHandler[*metav1.PartialObjectMetadata, ref] {
	return handler.TypedFuncs[*metav1.PartialObjectMetadata, ref]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[*metav1.PartialObjectMetadata], q queue) {
			o := valuesObject{Kind: e.Object.Kind, Namespace: e.Object.Namespace, Name: e.Object.Name}
			for _, rel := range r.watches.naming(o) {
				r.catalogChanged(q, rel, "ValuesFrom")
			}
		},
	}
}
