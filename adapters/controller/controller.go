package controller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/apiclient"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/apivolumes"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Name is the controller's name, the reporting controller of its events
// and its leader election lease's.
const Name = "worker-image-controller"

// Options configure the controller.
type Options struct {
	// CatalogRelease is the catalog's HelmRelease, whose values every pool
	// is planned against (spec.values over spec.valuesFrom, as Flux gives
	// them to the chart); when it does not exist the catalog is not
	// deployed and serves no golden. The zero value reads the catalog back
	// from the goldens instead (catalog.FromCluster).
	CatalogRelease types.NamespacedName
	// Timeout bounds one plan, its reads and its events; 0 means 30 s.
	Timeout time.Duration
	// Registerer takes the metrics; nil means controller-runtime's
	// registry, which the manager serves on its metrics endpoint.
	Registerer prometheus.Registerer
}

var (
	poolGVK        = schema.FromAPIVersionAndKind(plan.PoolAPIVersion, plan.PoolKind)
	helmReleaseGVK = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}
)

// ref is what the controller plans: a pool, of one of two kinds, a VM
// disk, of one of two kinds, or the catalog's goldens (kind goldensKind).
type ref struct {
	Kind      string
	Namespace string
	Name      string
}

const (
	kubernetesNodes = "KubernetesNodes"
	helmRelease     = "HelmRelease"
	vmDisk          = "VMDisk"
	// vmDiskRelease is a HelmRelease of the vm-disk chart.
	vmDiskRelease = "VMDiskRelease"
	goldensKind   = "Goldens"
)

var goldens = ref{Kind: goldensKind}

// Setup adds the controller to mgr: it plans every KubernetesNodes pool,
// every HelmRelease of the kubernetes-nodes chart, every VMDisk and
// HelmRelease of the vm-disk chart, and the catalog's goldens from mgr's
// cache, again whenever something that can move a verdict changes (a
// StorageClass, StorageProfile, CDI, CDIConfig, CSIDriver,
// VolumeSnapshotClass, a golden's, a pool's disk's or a VM disk's source's
// DataVolume or PVC, the catalog release, the image catalog's release
// vm-default-images, a ConfigMap or Secret either release's
// spec.valuesFrom names), records an Event on a pool or VM disk when its
// verdict changes, and exports the metrics. It writes no other object. A
// start is no change: the first plan of a pool or VM disk made before the
// controller started records its Warnings only, no Normal Planned.
// The Events are written after the re-plans: while a change seen is still
// to be planned again they wait, 10 s at most, so that one change that
// moves the verdicts of thousands of pools is planned first and told
// after; the metrics move at once.
//
// A catalog whose spec.valuesFrom names objects this identity may not get
// leaves every plan against it unverified: a Warning Event Unverified on
// each pool (and each VM disk that clones an image) names the objects and
// the chart value that grants them, once, and the plan is retried, with
// backoff, until they are granted.
//
// The ConfigMaps and Secrets are watched one by one, by name, in the
// release's namespace, and only their metadata is held: this identity
// needs get, list and watch on exactly those (resourceNames), never on
// every Secret.
//
// mgr's scheme must hold CDI's types (controllerruntime.AddToScheme), its
// cache should be made with controllerruntime.CacheOptions and its client
// cache unstructured objects (client.CacheOptions{Unstructured: true}).
// Setup adds a readiness check "controller" that passes once the cache
// has synced.
func Setup(mgr manager.Manager, o Options) error {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Registerer == nil {
		o.Registerer = crmetrics.Registry
	}
	m := newMetrics()
	if err := m.register(o.Registerer); err != nil {
		return fmt.Errorf("register the metrics: %w", err)
	}
	mc, err := metadata.NewForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("a metadata client: %w", err)
	}
	h := newHold(eventsHeldFor)
	rec, err := recorder(mgr, h, m.eventsDropped)
	if err != nil {
		return fmt.Errorf("an event recorder: %w", err)
	}
	ep := &epoch{now: time.Now}
	api, err := apiclient.Reader(mgr)
	if err != nil {
		return fmt.Errorf("a client of the API server: %w", err)
	}
	r := &reconciler{
		client:  mgr.GetClient(),
		started: time.Now(),
		epoch:   ep,
		// The objects the catalog release's valuesFrom names are read
		// from the API: a cache would watch every ConfigMap and Secret.
		values: catalogrelease.ReaderSource(api),
		// The cache itself, not the client: a pool's plan then reads its
		// own disks through the cache's index, not its namespace's all;
		// the cluster-scoped kinds are listed once between two changes.
		// PersistentVolumes, most of a cluster's objects, are read by name
		// from the API server (a golden's once for every plan of a second)
		// rather than held by an informer. The reviews of what this
		// identity may watch go through the same client, without
		// client-go's 5 requests a second: the first plans after a start
		// ask about every kind.
		reader: &controllerruntime.Reader{Client: &sharedCache{
			Cache: &apivolumes.Cache{Cache: mgr.GetCache(), API: api, For: sharedFor}, epoch: ep,
		}, Reviewer: api},
		recorder: rec,
		opts:     o,
		metrics:  m,
		planned:  map[ref]*entry{},
		pending:  map[ref]pending{},
		hold:     h,
		goldens:  map[string]int{},
		watches:  newValuesWatches(mc, mgr.GetLogger().WithName(Name)),
	}
	if err := mgr.Add(manager.RunnableFunc(r.watches.run)); err != nil {
		return err
	}
	if err := r.watch(mgr); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("controller", func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), time.Second)
		defer cancel()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errors.New("the cache has not synced")
		}
		return nil
	})
}

// reconciler plans pools, VM disks and goldens.
type reconciler struct {
	client client.Client
	// started is when the controller was set up: see preexisting.
	started  time.Time
	values   catalogrelease.Source
	compiler catalogrelease.Compiler
	catalogs memo[*catalog.Catalog]
	// epoch moves with each change seen to a cluster-scoped kind or a
	// golden: what the plans share (readBacks, the reader's lists of the
	// cluster-scoped kinds) is read again after it.
	epoch     *epoch
	readBacks shared[*catalog.Catalog]
	images    memo[*vmimages.Catalog]
	watches   *valuesWatches
	reader    state.Reader
	recorder  events.EventRecorder
	opts      Options
	metrics   *metrics

	mu sync.Mutex
	// planned are the pools and VM disks planned, each with what was
	// last concluded of it.
	planned map[ref]*entry
	pending map[ref]pending
	// hold keeps the Events back while a change is pending.
	hold    *hold
	goldens map[string]int // phase → goldens, as last exported
}

// pending is a change not yet planned again: when the cache saw it, and
// the kind that changed.
type pending struct {
	at      time.Time
	trigger string
}

// entry is what the controller last concluded about a pool or a VM disk
// (deps.disk).
type entry struct {
	verdict  string
	outcome  string
	reason   string
	warnings []string
	host     bool
	deps     deps
}

// deps are what a pool's or a VM disk's plan rested on: a change to any
// of them may move its verdict.
type deps struct {
	// disk: a VM disk's plan, not a pool's.
	disk        bool
	namespace   string
	capiName    string
	classes     []string
	drivers     []string
	golden      string
	defaultUsed bool
	// any: the plan resolved no class, so any class may matter.
	any bool
	// cluster: the plan read the cluster's CDI and CDIConfig (a VM disk's
	// does only for a clone).
	cluster bool
	// objects are the DataVolumes and PVCs, "namespace/name", the plan
	// read by name: a VM disk's own DataVolume and its source's.
	objects []string
	// image: a VM disk that clones an image of the image catalog.
	image bool
}

// fetch gets req's object as gvk from the cache; gone (or its kind not
// served), it is forgotten and fetch returns nil and no error.
func (r *reconciler) fetch(ctx context.Context, req ref, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	err := r.client.Get(ctx, types.NamespacedName{Namespace: req.Namespace, Name: req.Name}, obj)
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		r.forget(req)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return obj, nil
}

func (r *reconciler) Reconcile(ctx context.Context, req ref) (ctrl.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	switch req.Kind {
	case goldensKind:
		return ctrl.Result{}, r.planGoldens(ctx)
	case vmDisk, vmDiskRelease:
		return r.planDisk(ctx, req)
	}
	gvk := poolGVK
	if req.Kind == helmRelease {
		gvk = helmReleaseGVK
	}
	obj, err := r.fetch(ctx, req, gvk)
	if obj == nil || err != nil {
		return ctrl.Result{}, err
	}
	pool, ok, err := poolOf(req, obj)
	if err != nil || !ok {
		r.forget(req)
		return ctrl.Result{}, nil // not a pool, or values no plan can be made of: nothing to watch
	}
	cat, err := r.catalog(ctx)
	if u := (*ungranted)(nil); errors.As(err, &u) {
		// Told on the pool; still requeued (with backoff) until granted.
		r.unverifiedBy(req, obj, u, deps{namespace: pool.Namespace, capiName: naming.PoolCAPIName(pool.Name)}, "disk-system is planned")
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if cat == nil {
		if cat, err = r.readBack(ctx); err != nil {
			r.metrics.planFailures.Inc()
			return ctrl.Result{}, err
		}
	}
	st, err := r.reader.Read(ctx, plan.Needs(pool))
	if err != nil {
		r.metrics.planFailures.Inc()
		return ctrl.Result{}, err
	}
	snap := state.NewSnapshot(st)
	res, _ := plan.Plan(pool, cat, snap)
	e := summarize(pool, res, snap)
	if changed, first := r.record(req, e); changed {
		r.events(obj, res.Refusals, res.Warnings, summary(res), !first || !r.preexisting(obj))
	}
	return ctrl.Result{}, nil
}

// poolOf reads the pool an object is: a KubernetesNodes, or a HelmRelease
// of the kubernetes-nodes chart (poolrelease.Of); not ok for any other
// release, or one the chart renders nothing of.
func poolOf(req ref, obj *unstructured.Unstructured) (plan.Pool, bool, error) {
	if req.Kind == kubernetesNodes {
		p, err := plan.PoolFromObject(obj.Object)
		return p, err == nil, err
	}
	r, ok := poolrelease.Of(obj.Object, poolrelease.Pools)
	if !ok || r.Pool == "" {
		return plan.Pool{}, false, nil
	}
	return plan.DecodePool(r.Namespace, r.Pool, poolrelease.Values(obj.Object)), true, nil
}

// catalog is the catalog release's, read as the webhook and the CLI read
// it (catalogrelease.Compiler), disabled when it does not exist, nil when
// the catalog is to be read back from the goldens.
func (r *reconciler) catalog(ctx context.Context) (*catalog.Catalog, error) {
	if r.opts.CatalogRelease.Name == "" {
		return nil, nil
	}
	return r.catalogs.get(ctx, r.client, r.opts.CatalogRelease, func(hr *unstructured.Unstructured) (*catalog.Catalog, error) {
		cat, _, err := r.compiler.Catalog(ctx, r.client, r.opts.CatalogRelease, r.values)
		return cat, r.ungrantedOf(ctx, hr, "catalogRelease", err)
	})
}

// readBack is the catalog read back from the goldens (catalog.FromCluster
// of what catalog.RenderNeeds reads), shared by every plan until a change
// to what it is read from is seen (r.epoch).
func (r *reconciler) readBack(ctx context.Context) (*catalog.Catalog, error) {
	return r.readBacks.get(r.epoch, func() (*catalog.Catalog, error) {
		st, err := r.reader.Read(ctx, catalog.RenderNeeds())
		if err != nil {
			return nil, err
		}
		cat, _ := catalog.FromCluster(state.NewSnapshot(st))
		return cat, nil
	})
}

// unverified is the outcome of a plan that passed without reading a kind
// its guards needed (StateUnverified: this identity may not list it, or
// it is not served): not refused, and not planned either.
const unverified = "unverified"

// unread are the kinds a plan's StateUnverified warnings name.
func unread(ws guard.Warnings) []string {
	var kinds []string
	for _, w := range ws {
		if w.Reason == guard.StateUnverified && w.Kind != "" && !slices.Contains(kinds, w.Kind) {
			kinds = append(kinds, w.Kind)
		}
	}
	return kinds
}

// grants says what to grant for the kinds a plan could not read: list and
// watch in every namespace, or get for PersistentVolumes, which are read
// by name.
func grants(kinds []string) string {
	var listed, got []string
	for _, k := range kinds {
		if k == state.PersistentVolume.String() {
			got = append(got, k)
		} else {
			listed = append(listed, k)
		}
	}
	var g []string
	if len(listed) > 0 {
		g = append(g, "list and watch on "+strings.Join(listed, ", "))
	}
	if len(got) > 0 {
		g = append(g, "get on "+strings.Join(got, ", "))
	}
	return strings.Join(g, " and ")
}

// summarize is what the controller keeps of a pool's plan.
func summarize(pool plan.Pool, res plan.Result, snap *state.Snapshot) *entry {
	e := judge(res.Outcome, res.Refusals, res.Warnings)
	e.deps = depsOf(pool, res, snap)
	return e
}

// judge is the verdict of a plan: its outcome, its first refusal's reason,
// its warnings' reasons and whether it predicts a host-assisted clone.
func judge(outcome plan.Outcome, refusals guard.Refusals, warnings guard.Warnings) *entry {
	e := &entry{outcome: string(outcome), reason: "Planned"}
	if outcome == plan.Planned && len(unread(warnings)) > 0 {
		e.outcome, e.reason = unverified, "Unverified"
	}
	reasons := []string{e.outcome}
	if len(refusals) > 0 {
		e.reason = string(refusals[0].Reason)
		for _, f := range refusals {
			reasons = append(reasons, string(f.Reason))
			if f.Reason == guard.HostAssistedClone {
				e.host = true
			}
		}
	}
	for _, w := range warnings {
		if !slices.Contains(e.warnings, string(w.Reason)) {
			e.warnings = append(e.warnings, string(w.Reason))
		}
		reasons = append(reasons, "warning:"+string(w.Reason))
		if w.Reason == guard.HostAssistedClone {
			e.host = true
		}
	}
	slices.Sort(reasons)
	e.verdict = strings.Join(reasons, ",")
	return e
}

// depsOf is what a plan rested on: the pool's class and its golden's, their
// drivers, the golden, and the cluster default when a class is left to it.
func depsOf(pool plan.Pool, res plan.Result, snap *state.Snapshot) deps {
	d := deps{namespace: pool.Namespace, capiName: naming.PoolCAPIName(pool.Name), golden: res.Golden, cluster: true}
	add := func(class string) {
		if class == "" || slices.Contains(d.classes, class) {
			return
		}
		d.classes = append(d.classes, class)
		if sc := stateindex.Of(snap).StorageClass(class); sc != nil && !slices.Contains(d.drivers, sc.Provisioner) {
			d.drivers = append(d.drivers, sc.Provisioner)
		}
	}
	add(res.StorageClass.Name)
	add(pool.Spec.StorageClass)
	if d.golden == "" && pool.Spec.OSImage != nil && pool.Spec.OSImage.Builtin != nil {
		d.golden, _ = naming.GoldenName(pool.Spec.Talos.SchematicID, pool.Spec.Talos.Version, nil, nil)
	}
	if d.golden != "" {
		add(stateindex.Of(snap).Disk(naming.GoldenNamespace, d.golden).Class())
	}
	d.defaultUsed = pool.Spec.StorageClass == "" || res.StorageClass.Name == ""
	d.any = res.StorageClass.Name == ""
	return d
}

// record keeps a pool's or a VM disk's entry and moves the metrics by the
// difference; it reports whether the verdict changed.
func (r *reconciler) record(req ref, e *entry) (changed, first bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.planned[req]
	r.move(old, -1)
	r.move(e, 1)
	r.planned[req] = e
	r.observe(req)
	return old == nil || old.verdict != e.verdict, old == nil
}

// preexisting reports whether obj was created before the controller
// started. Its first plan then tells nothing new to whoever watched the
// cluster before (a previous leader recorded its verdict): a Normal
// Planned is not recorded again, as otherwise every start (a rollout, a
// change of leader) would write one Event per pool. Its Warnings are
// recorded. A creation time counts whole seconds: one in the second of
// the start is taken as after it. An object created within the clocks'
// skew after the start may be taken for one created before it.
func (r *reconciler) preexisting(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetCreationTimestamp().Time.Before(r.started.Truncate(time.Second))
}

// forget drops a pool or a VM disk that is gone.
func (r *reconciler) forget(req ref) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.planned[req]; old != nil {
		r.move(old, -1)
		delete(r.planned, req)
	}
	r.unpend(req)
}

func (r *reconciler) move(e *entry, by float64) {
	if e == nil {
		return
	}
	objects, warnings, host := r.metrics.pools, r.metrics.warnings, r.metrics.hostAssisted
	if e.deps.disk {
		objects, warnings, host = r.metrics.disks, r.metrics.diskWarnings, r.metrics.diskHostAssisted
	}
	objects.WithLabelValues(e.outcome, e.reason).Add(by)
	for _, w := range e.warnings {
		warnings.WithLabelValues(w).Add(by)
	}
	if e.host {
		host.Add(by)
	}
}

// observe ends the pending change of req, if any: it is planned again.
func (r *reconciler) observe(req ref) {
	if p, ok := r.pending[req]; ok {
		r.metrics.replan.WithLabelValues(p.trigger).Observe(time.Since(p.at).Seconds())
		r.unpend(req)
	}
}

// pend stamps the change of req, unless one already waits: r.mu is held.
func (r *reconciler) pend(req ref, at time.Time, trigger string) {
	if _, ok := r.pending[req]; !ok {
		r.pending[req] = pending{at: at, trigger: trigger}
		r.hold.set(true)
	}
}

// unpend drops the change of req: r.mu is held.
func (r *reconciler) unpend(req ref) {
	delete(r.pending, req)
	r.hold.set(len(r.pending) > 0)
}

// noteLimit is the most bytes an events.k8s.io/v1 Event's note holds.
const noteLimit = 1024

// events records a verdict that changed: a Warning per refusal reason, or
// a Normal Planned (a Warning Unverified when the plan could not read a
// kind it needed; no Planned unless planned) and a Warning per warning
// reason. summary says what the plan is, in a sentence.
func (r *reconciler) events(obj runtime.Object, refusals guard.Refusals, warnings guard.Warnings, summary string, planned bool) {
	if len(refusals) > 0 {
		byReason := map[guard.Reason][]string{}
		var order []guard.Reason
		for _, f := range refusals {
			if _, ok := byReason[f.Reason]; !ok {
				order = append(order, f.Reason)
			}
			byReason[f.Reason] = append(byReason[f.Reason], f.Error())
		}
		for _, reason := range order {
			r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, string(reason), "Plan", "%s", note("refused: "+strings.Join(byReason[reason], "; ")))
		}
		return
	}
	if kinds := unread(warnings); len(kinds) > 0 {
		r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, "Unverified", "Plan", "%s", note(fmt.Sprintf(
			"unverified: %s, without reading %s, which its guards need (this identity may not read them, or they are not served): grant %s",
			summary, strings.Join(kinds, ", "), grants(kinds))))
	} else if planned {
		r.recorder.Eventf(obj, nil, corev1.EventTypeNormal, "Planned", "Plan", "%s", note(summary))
	}
	seen := map[guard.Reason]bool{}
	for _, w := range warnings {
		if !seen[w.Reason] {
			seen[w.Reason] = true
			r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, string(w.Reason), "Plan", "%s", note(w.String()))
		}
	}
}

func summary(res plan.Result) string {
	if res.Source == plan.Clone {
		return fmt.Sprintf("disk-system clones golden %s on StorageClass %s", res.Golden, res.StorageClass.Name)
	}
	return "disk-system imports its image over HTTP"
}

// note cuts s to noteLimit bytes, at a character boundary.
func note(s string) string {
	if len(s) <= noteLimit {
		return s
	}
	const more = "…"
	cut := noteLimit - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}

// phases are the goldens' phases the metric exports.
var phases = []string{"Populated", "Importing", "Stalled", "Failed", "Absent", "Unknown"}

// planGoldens exports the catalog's goldens by phase. While the catalog
// release's values may not be read, the goldens the cluster holds are
// exported (as read back), rather than what was last seen, and the
// reconcile is requeued until they are granted.
func (r *reconciler) planGoldens(ctx context.Context) error {
	cat, err := r.catalog(ctx)
	if u := (*ungranted)(nil); err != nil && !errors.As(err, &u) {
		return err
	}
	if err != nil {
		cat = nil
	}
	st, readErr := r.reader.Read(ctx, catalog.RenderNeeds())
	if readErr != nil {
		r.metrics.planFailures.Inc()
		return readErr
	}
	snap := state.NewSnapshot(st)
	if cat == nil {
		cat, _ = catalog.FromCluster(snap)
	}
	counts := map[string]int{}
	if cat.Enabled() {
		for e := range cat.Entries() {
			if e.Golden != "" {
				counts[phaseOf(golden.Observe(e.Golden, nil, snap))]++
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range phases {
		r.metrics.goldens.WithLabelValues(p).Set(float64(counts[p]))
	}
	r.goldens = counts
	r.observe(goldens)
	return err
}

func phaseOf(g golden.Golden) string {
	switch g.Presence {
	case golden.Absent:
		return "Absent"
	case golden.Unobserved:
		return "Unknown"
	}
	switch g.Import {
	case golden.Populated:
		return "Populated"
	case golden.Importing:
		return "Importing"
	case golden.Stalled:
		return "Stalled"
	case golden.Failed:
		return "Failed"
	}
	return "Unknown"
}
