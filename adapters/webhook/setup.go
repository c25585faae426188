package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/apiclient"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/apivolumes"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/diskindex"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Setup serves the webhooks on mgr's webhook server, reading the
// cluster's state from mgr's cache (a pool's disks through an index of
// their pool annotation, which the warm-up adds), and adds to mgr a
// liveness check "ping", and readiness checks "webhook" (the server
// answers TLS) and "cache" (the informers of every kind an admission reads
// have synced: until then an admission would wait on them). An admission
// reads PersistentVolumes, by name, from the API server, each at most once
// a second: no informer holds the cluster's every volume. The manager's
// scheme must hold CDI's types (controllerruntime.AddToScheme), its client
// must cache unstructured objects (client.CacheOptions{Unstructured: true})
// for the catalog release to be read from the cache, and its cache should
// be made with CacheOptions(o), which caches that one release and no
// other.
func Setup(mgr manager.Manager, o Options) (*Validator, error) {
	v := New(mgr.GetClient(), o)
	// The cluster's state is read from the cache itself: over it, a
	// pool's disks are read through an index of their pool annotation,
	// not its namespace's every DataVolume and PVC. The kinds a plan reads
	// are typed, so the manager's client would read them from the cache
	// too.
	// A PersistentVolume is read by name from the API server: a cluster's
	// volumes are most of its objects, and a plan reads only its golden's
	// (once a second, whatever the admissions of that second).
	// What no informer holds is read through a client of its own, which
	// sets no client-side limit where mgr's config sets none
	// (apiclient.Config): an admission reads some of it each time.
	api, err := apiclient.Reader(mgr)
	if err != nil {
		return nil, err
	}
	v.state = controllerruntime.New(&apivolumes.Cache{Cache: mgr.GetCache(), API: api, For: time.Second})
	// The objects the catalog release's valuesFrom names are read from
	// the API, not cached: a cache would watch every ConfigMap and Secret.
	v.values = catalogrelease.ReaderSource(api)
	v.api = api
	v.Register(mgr.GetWebhookServer())
	w := &warmer{cache: mgr.GetCache(), api: api, scheme: mgr.GetScheme(), release: v.opts.CatalogRelease, readRelease: v.opts.CatalogRelease.Name != "" && v.opts.Catalog == nil}
	v.forbidden = &w.forbidden
	if err := mgr.Add(w); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("cache", w.ready); err != nil {
		return nil, err
	}
	return v, nil
}

// CacheOptions are the options of a manager's cache for the webhook: the
// catalog release is the only HelmRelease cached (a list and watch of one
// name in one namespace, which a Role can grant by resourceNames), and
// every object keeps only what a plan reads (controllerruntime.CacheOptions).
func CacheOptions(o Options) cache.Options {
	opts := controllerruntime.CacheOptions()
	if key := o.CatalogRelease; key.Name != "" && o.Catalog == nil {
		hr := &unstructured.Unstructured{}
		hr.SetGroupVersionKind(helmReleaseGVK)
		opts.ByObject = map[client.Object]cache.ByObject{hr: {
			Namespaces: map[string]cache.Config{key.Namespace: {}},
			Field:      fields.OneTermEqualSelector("metadata.name", key.Name),
		}}
	}
	return opts
}

// warmer starts the informers an admission reads once the cache runs, so
// that the first admission reads memory, and reports ready when they have
// synced. A kind the server does not serve (CDI not installed) is skipped:
// the planner takes it as unknown. A kind the webhook may not list is
// found first, by one list of it through the API (an informer would retry
// it forever, and every admission would wait on it until it timed out):
// it is forbidden, which readiness and every admission say, with what to
// grant.
type warmer struct {
	cache       cache.Cache
	api         client.Reader
	scheme      *runtime.Scheme
	release     types.NamespacedName
	readRelease bool
	synced      atomic.Bool
	// forbidden says which kinds the webhook may not list, once known.
	forbidden atomic.Pointer[error]
}

func (w *warmer) Start(ctx context.Context) error {
	log := logf.FromContext(ctx).WithName("worker-image-webhook")
	var objs []client.Object
	for _, k := range kinds.AdmissionReads().Each() {
		o, err := w.scheme.New(kinds.Of(k).GVK)
		if err != nil {
			return fmt.Errorf("the manager's scheme lacks %s: register it with controllerruntime.AddToScheme: %w", kinds.Of(k).GVK, err)
		}
		objs = append(objs, o.(client.Object))
	}
	var lists []listing
	for _, k := range kinds.AdmissionReads().Each() {
		info := kinds.Of(k)
		l, err := w.scheme.New(info.GVK.GroupVersion().WithKind(info.GVK.Kind + "List"))
		if err != nil {
			return fmt.Errorf("the manager's scheme lacks %sList: register it with controllerruntime.AddToScheme: %w", info.GVK, err)
		}
		gr := schema.GroupResource{Group: info.GVK.Group, Resource: info.Resource}.String()
		if k == state.PersistentVolume {
			// Read by name from the API server (Setup): get is what it needs.
			lists = append(lists, listing{what: gr, get: &corev1.PersistentVolume{}})
			continue
		}
		lists = append(lists, listing{l.(client.ObjectList), gr + " in every namespace", nil, nil})
	}
	if w.readRelease {
		hr := &unstructured.Unstructured{}
		hr.SetGroupVersionKind(helmReleaseGVK)
		objs = append(objs, hr)
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(helmReleaseGVK.GroupVersion().WithKind(helmReleaseGVK.Kind + "List"))
		lists = append(lists, listing{l, fmt.Sprintf("helmreleases.%s in namespace %s (resourceNames: %s)", helmReleaseGVK.Group, w.release.Namespace, w.release.Name),
			[]client.ListOption{client.InNamespace(w.release.Namespace), client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", w.release.Name)}}, nil})
	}
	if err := w.allowed(ctx, lists); err != nil {
		w.forbidden.Store(&err)
		log.Error(err, "the webhook may not read what it judges by: every admission is denied until it may")
		<-ctx.Done()
		return nil
	}
	// The informers list at once: the API server encodes one kind's
	// objects while the webhook decodes another's.
	errs := make([]error, len(objs))
	var started sync.WaitGroup
	for i, o := range objs {
		if _, ok := o.(*corev1.PersistentVolume); ok {
			// Read by name from the API server (Setup).
			continue
		}
		started.Go(func() { _, errs[i] = w.cache.GetInformer(ctx, o) })
	}
	started.Wait()
	for i, err := range errs {
		o := objs[i]
		if err == nil {
			continue
		}
		if meta.IsNoMatchError(err) {
			log.Info("kind not served, it stays unknown to every plan", "kind", o.GetObjectKind().GroupVersionKind().String(), "type", fmt.Sprintf("%T", o))
			continue
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil
		}
		return fmt.Errorf("start the informer of %T: %w", o, err)
	}
	if err := diskindex.Add(ctx, w.cache); err != nil {
		// The first admission adds it, or lists the namespace whole.
		log.Error(err, "index the worker disks by pool")
	}
	w.synced.Store(true)
	log.Info("informers synced")
	<-ctx.Done()
	return nil
}

// NeedLeaderElection is false: every replica of the webhook serves.
func (w *warmer) NeedLeaderElection() bool { return false }

// listing is one list the cache will make: of what, with which options;
// or, where get is set, a kind read by name, one object at a time.
type listing struct {
	list client.ObjectList
	what string
	opts []client.ListOption
	get  client.Object
}

// unnamed is a name no object has: a Get of it is answered NotFound where
// the identity may get the kind, Forbidden where it may not.
const unnamed = "worker-image-access-probe"

// allowed makes each list once through the API, as the cache will, and a
// Get of each kind read by name, and says every one it may not make, with
// what to grant.
func (w *warmer) allowed(ctx context.Context, lists []listing) error {
	var listed, got []string
	for _, l := range lists {
		if l.get != nil {
			if err := w.api.Get(ctx, client.ObjectKey{Name: unnamed}, l.get); apierrors.IsForbidden(err) {
				got = append(got, l.what)
			}
			continue
		}
		if err := w.api.List(ctx, l.list, append(l.opts, client.Limit(1))...); apierrors.IsForbidden(err) {
			listed = append(listed, l.what)
		}
	}
	var grant []string
	if len(listed) > 0 {
		grant = append(grant, "list and watch on "+strings.Join(listed, ", "))
	}
	if len(got) > 0 {
		grant = append(grant, "get on "+strings.Join(got, ", "))
	}
	if len(grant) == 0 {
		return nil
	}
	return fmt.Errorf("forbidden: grant %s to the webhook's user (worker-image webhook manifests prints the ClusterRole and the Role)", strings.Join(grant, " and "))
}

func (w *warmer) ready(*http.Request) error {
	if err := w.forbidden.Load(); err != nil {
		return *err
	}
	if !w.synced.Load() {
		return errors.New("the informers of the cluster's state have not synced yet")
	}
	return nil
}
