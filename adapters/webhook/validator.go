package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/escape"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Validator decides admission requests for pools and the catalog. It reads
// the cluster through a controller-runtime client.Reader, exactly what
// each plan needs (plan.Needs) or a render needs (catalog.RenderNeeds):
// give it the manager's client, and every admission is answered from the
// manager's cache. It is safe for concurrent use.
type Validator struct {
	client client.Reader
	// api reads what the cache does not hold: the image catalog's release.
	api   client.Reader
	state state.Reader
	opts  Options
	// values reads what the catalog release's valuesFrom names.
	values catalogrelease.Source
	// compiler keeps the catalog release's last compiled state.
	compiler catalogrelease.Compiler
	// forbidden, set by Setup, says what the webhook may not list.
	forbidden *atomic.Pointer[error]
}

// denied is why the cluster cannot be read at all: a kind the webhook may
// not list.
func (v *Validator) denied() error {
	if v.forbidden == nil {
		return nil
	}
	if err := v.forbidden.Load(); err != nil {
		return *err
	}
	return nil
}

// New returns a Validator reading through c, which must know CDI's types
// (controllerruntime.AddToScheme) and, to read the catalog release from a
// cache, cache unstructured objects; Register serves its webhooks. Setup
// does both on a manager, with its checks.
func New(c client.Reader, o Options) *Validator {
	return &Validator{client: c, api: c, state: controllerruntime.New(c), values: catalogrelease.ReaderSource(c), opts: o}
}

// pools is the webhook of KubernetesNodes (apps.cozystack.io/v1alpha1),
// served at PoolsPath.
func (v *Validator) pools() *admission.Webhook {
	return &admission.Webhook{Handler: handler{resource: "kubernetesnodes", kind: poolGVK.GroupKind(), timeout: readTimeout, decide: v.pool}}
}

// releases is the webhook of Flux HelmReleases
// (helm.toolkit.fluxcd.io/v2), served at ReleasesPath: a release of the
// kubernetes-nodes chart is planned as its pool, one of the
// kubernetes-worker-image chart rendered as the catalog, and any other is
// admitted untouched.
func (v *Validator) releases() *admission.Webhook {
	return &admission.Webhook{Handler: handler{resource: "helmreleases", kind: helmReleaseGVK.GroupKind(), timeout: readTimeout, decide: v.release}}
}

// Register serves the webhooks on s, at PoolsPath, ReleasesPath and
// VMDisksPath.
func (v *Validator) Register(s webhook.Server) {
	s.Register(PoolsPath, v.pools())
	s.Register(ReleasesPath, v.releases())
	s.Register(VMDisksPath, v.vmDisks())
}

// handler times a decision, counts it and writes it.
type handler struct {
	resource string
	// kind is the kind of the objects it validates.
	kind    schema.GroupKind
	timeout time.Duration
	decide  func(context.Context, admission.Request) decision
}

func (h handler) Handle(ctx context.Context, req admission.Request) admission.Response {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	d, ok := h.check(req)
	if ok {
		d = h.decide(ctx, req)
	}
	took := time.Since(began)
	op := string(req.Operation)
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
	default:
		// The metrics' operation label stays of bounded cardinality.
		op = "invalid"
	}
	observe(h.resource, op, d, took)
	logDecision(logf.FromContext(ctx), h.resource, req, d, took)
	return d.response()
}

// logDecision writes one line per decision, at the default verbosity:
// what was asked, of what, and what was decided, with the reasons of the
// findings (a fixed, small set) and, for a request that was not judged,
// why. Text from the request is escaped and cut to logText bytes, so a
// line is bounded whatever the request.
func logDecision(log logr.Logger, resource string, req admission.Request, d decision, took time.Duration) {
	if !log.Enabled() {
		return
	}
	const logText = 256
	text := func(s string) string { return escape.Truncate(s, logText) }
	kv := []any{"resource", resource, "operation", text(string(req.Operation)), "namespace", text(req.Namespace), "name", text(req.Name),
		"uid", text(string(req.UID)), "subject", d.subject, "outcome", d.outcome,
		"refusals", d.refused.total, "warnings", d.warned.total, "seconds", took.Seconds()}
	if reasons := append(append([]guard.Reason{}, d.refused.reasons...), d.warned.reasons...); len(reasons) > 0 {
		kv = append(kv, "reasons", reasons)
	}
	if d.status != nil && d.outcome != outcomeRefused {
		kv = append(kv, "message", text(d.status.Message))
	}
	log.Info("admission", kv...)
}

// check decides a request that is not one to judge: a review without a
// request (no uid), an operation the API has not, a review of another
// kind are bad requests, never admitted on a guess; a delete plans
// nothing and is admitted. ok is true for a create or an update of the
// handler's kind.
func (h handler) check(req admission.Request) (d decision, ok bool) {
	switch {
	case req.UID == "":
		return badRequest(subjectNone, "the AdmissionReview holds no request, or a request without a uid: the API server sends request.uid, and the answer must carry it"), false
	case req.Kind.Kind == "" || (schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}) != h.kind:
		return badRequest(subjectNone, "this webhook validates %s, and the request is of kind %q in group %q: the webhook configuration sends it only %s",
			h.kind, req.Kind.Kind, req.Kind.Group, h.kind), false
	}
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
		return decision{}, true
	case admissionv1.Delete:
		return decision{subject: subjectNone, outcome: outcomeSkipped}, false
	}
	return badRequest(subjectNone, "the request's operation %q is none of CREATE, UPDATE and DELETE (in capitals, as the API server sends them)", req.Operation), false
}

// pool decides a KubernetesNodes create or update.
func (v *Validator) pool(ctx context.Context, req admission.Request) decision {
	obj, err := decodeObject(req.Object.Raw)
	if err != nil {
		return badRequest(subjectNone, "the request's object: %v", err)
	}
	typed(obj, req)
	pool, err := plan.PoolFromObject(obj)
	if err != nil {
		return badRequest(subjectNone, "this webhook validates %s %s pools: %v", plan.PoolAPIVersion, plan.PoolKind, err)
	}
	fillName(&pool, req)
	old := func() (plan.Pool, bool) {
		if req.Operation != admissionv1.Update {
			return plan.Pool{}, false
		}
		o, err := decodeObject(req.OldObject.Raw)
		if err != nil {
			return plan.Pool{}, false
		}
		typed(o, req)
		p, err := plan.PoolFromObject(o)
		fillName(&p, req)
		return p, err == nil
	}
	t := target{gk: poolGVK.GroupKind(), namespace: pool.Namespace, name: pool.Name, values: "spec"}
	return v.admitPool(ctx, t, pool, old, nil)
}

// typed gives an object that does not say what it is the request's kind:
// an API server sends objects with their apiVersion and kind, but a
// request need not.
func typed(obj map[string]any, req admission.Request) {
	if obj["apiVersion"] == nil && obj["kind"] == nil && req.Kind.Kind != "" {
		obj["apiVersion"] = schema.GroupVersion{Group: req.Kind.Group, Version: req.Kind.Version}.String()
		obj["kind"] = req.Kind.Kind
	}
}

// fillName gives a pool the request's namespace and name where its object
// leaves them out.
func fillName(p *plan.Pool, req admission.Request) {
	if p.Namespace == "" {
		p.Namespace = req.Namespace
	}
	if p.Name == "" {
		p.Name = req.Name
	}
}

// admitPool plans a pool against the catalog and the cluster's state:
// planned, it is admitted with its warnings; refused, it is denied, unless
// it is an update that leaves its disk as it was: old reads the pool before
// the update, if there is one (it is read only then). extra are refusals
// of the object the planner does not see.
func (v *Validator) admitPool(ctx context.Context, t target, pool plan.Pool, old func() (plan.Pool, bool), extra guard.Refusals) decision {
	if err := v.denied(); err != nil {
		return readFailure(subjectPool, err, "the cluster")
	}
	view, err := v.catalog(ctx)
	if err != nil {
		return readFailure(subjectPool, err, "the catalog")
	}
	need := plan.Needs(pool)
	if view.readBack {
		need = need.Merge(catalog.RenderNeeds())
	}
	st, err := v.state.Read(ctx, need)
	if err != nil {
		return readFailure(subjectPool, err, "the cluster's state")
	}
	snap := state.NewSnapshot(st)
	d := decision{subject: subjectPool, outcome: outcomeAdmitted}
	cat := view.cat
	if view.readBack {
		var ws guard.Warnings
		cat, ws = catalog.FromCluster(snap)
		if clones(pool) {
			for _, w := range ws {
				d.warn(t, w)
			}
		}
	}
	res, _ := plan.Plan(pool, cat, snap)
	for _, w := range res.Warnings {
		d.warn(t, w)
	}
	if view.note != "" && clones(pool) {
		d.note("%s", view.note)
	}
	rs := append(append(guard.Refusals{}, extra...), res.Refusals...)
	if len(rs) == 0 {
		return d
	}
	if before, ok := old(); ok && sameDisk(before, pool, cat) {
		d.keep(t, rs, "this update leaves the pool's disk-system as it was")
		return d
	}
	d.refuse(t, rs)
	return d
}

// clones reports whether a pool asks to clone a golden.
func clones(p plan.Pool) bool {
	img := p.Spec.OSImage
	return img != nil && img.Builtin != nil
}

// decodeObject reads an object as the API server sent it, JSON, into the
// map a chart's values are: numbers as float64, as Flux hands them to Helm.
func decodeObject(raw []byte) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, errors.New("no object in the request")
	}
	if err := measure(raw); err != nil {
		return nil, fmt.Errorf("the object is beyond what the webhook judges: %v (a pool or a catalog release holds a few hundred); remove what the chart does not read", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if obj == nil {
		return nil, errors.New("the object is null")
	}
	return obj, nil
}
