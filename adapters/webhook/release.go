package webhook

import (
	"context"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// release decides a HelmRelease create or update by its chart.
func (v *Validator) release(ctx context.Context, req admission.Request) decision {
	obj, err := decodeObject(req.Object.Raw)
	if err != nil {
		return badRequest(subjectNone, "the request's object: %v", err)
	}
	typed(obj, req)
	if apiVersion, kind := obj["apiVersion"], obj["kind"]; apiVersion != helmReleaseGVK.GroupVersion().String() || kind != helmReleaseGVK.Kind {
		return badRequest(subjectNone, "this webhook validates %s HelmReleases; the object is %v %v", helmReleaseGVK.GroupVersion(), apiVersion, kind)
	}
	if isVMDiskRelease(obj) {
		return v.admitVMDiskRelease(ctx, obj)
	}
	subject := v.chartOf(obj)
	// The release before the update counts only if it was the release of
	// the same chart: one that becomes a pool or the catalog (its chart or
	// its labels changed) had no disk or goldens of this chart before, and
	// is judged as a create.
	old := func() (map[string]any, bool) {
		if req.Operation != admissionv1.Update {
			return nil, false
		}
		o, err := decodeObject(req.OldObject.Raw)
		if err != nil || v.chartOf(o) != subject || chartIdentity(o) != chartIdentity(obj) {
			return nil, false
		}
		return o, true
	}
	switch subject {
	case subjectCatalog:
		return v.admitCatalog(ctx, obj, old)
	case subjectPool:
		return v.admitPoolRelease(ctx, obj, old)
	}
	return decision{subject: subjectNone, outcome: outcomeSkipped}
}

// chartOf says what a HelmRelease is: the catalog (the catalog release
// itself, or a release of the catalog chart), a pool (poolrelease.Of: a
// release of the kubernetes-nodes chart, or one cozystack-api made for a
// KubernetesNodes), or neither.
func (v *Validator) chartOf(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	namespace, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	if key := v.opts.CatalogRelease; key.Name != "" && key.Namespace == namespace && key.Name == name {
		return subjectCatalog
	}
	if matches(catalogChart, obj) {
		return subjectCatalog
	}
	if _, ok := poolrelease.Of(obj, poolrelease.Pools); ok {
		return subjectPool
	}
	return subjectNone
}

// chartIdentity is what says which chart a HelmRelease releases: its
// spec.chartRef (its namespace defaulted to the release's), the chart and
// source of its spec.chart template, and the labels cozystack-api
// recognises its releases by. A chart's version is not part of it: a new
// version of the same chart is the same pool.
func chartIdentity(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	ref, _ := spec["chartRef"].(map[string]any)
	refNamespace := ref["namespace"]
	if ns, _ := refNamespace.(string); ns == "" && ref != nil {
		refNamespace = meta["namespace"]
	}
	chart, _ := spec["chart"].(map[string]any)
	template, _ := chart["spec"].(map[string]any)
	source, _ := template["sourceRef"].(map[string]any)
	sourceNamespace := source["namespace"]
	if ns, _ := sourceNamespace.(string); ns == "" && source != nil {
		sourceNamespace = meta["namespace"]
	}
	var b strings.Builder
	for _, v := range []any{
		ref["kind"], ref["name"], refNamespace,
		template["chart"], source["kind"], source["name"], sourceNamespace,
		labels[applicationKindLabel], labels[applicationGroupLabel],
	} {
		// A value that is not a string is told by its type alone: no chart
		// is named by one.
		if text, ok := v.(string); ok || v == nil {
			b.WriteString(text)
		} else {
			fmt.Fprintf(&b, "(%T)", v)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// matches reports whether a HelmRelease is of chart c.
func matches(c poolrelease.Chart, obj map[string]any) bool {
	meta, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	return c.Matches(meta, spec)
}

// releaseTarget is where a HelmRelease's values sit.
func releaseTarget(obj map[string]any) target {
	meta, _ := obj["metadata"].(map[string]any)
	t := target{gk: helmReleaseGVK.GroupKind(), values: "spec.values"}
	t.namespace, _ = meta["namespace"].(string)
	t.name, _ = meta["name"].(string)
	return t
}

// poolOf reads the pool a kubernetes-nodes release deploys
// (poolrelease.Of): the chart names it by its release name without the
// prefix (kubernetes-nodes-<cluster>-<pool>), and refuses to render a
// release name without it, which is refused here.
func (v *Validator) poolOf(obj map[string]any) (plan.Pool, target, guard.Refusals) {
	t := releaseTarget(obj)
	r, _ := poolrelease.Of(obj, poolrelease.Pools)
	name := r.Pool
	var rs guard.Refusals
	if name == "" {
		rs = guard.Refusals{{
			Reason: guard.InvalidPoolName, Field: r.NameField, BadValue: r.Name,
			Subject: "pool " + r.Namespace + "/" + r.Name,
			Detail: fmt.Sprintf("the release name %q does not start with %q, which the kubernetes-nodes chart requires and names the pool by what follows; name the release %s<cluster>-<pool>",
				r.Name, poolReleasePrefix, poolReleasePrefix),
		}}
		name = r.Name
	}
	return plan.DecodePool(r.Namespace, name, poolrelease.Values(obj)), t, rs
}

// admitPoolRelease plans the pool of a kubernetes-nodes release.
func (v *Validator) admitPoolRelease(ctx context.Context, obj map[string]any, oldObj func() (map[string]any, bool)) decision {
	pool, t, extra := v.poolOf(obj)
	old := func() (plan.Pool, bool) {
		o, ok := oldObj()
		if !ok {
			return plan.Pool{}, false
		}
		p, _, _ := v.poolOf(o)
		return p, true
	}
	d := v.admitPool(ctx, t, pool, old, extra)
	for _, n := range poolrelease.Unread(obj) {
		d.note("spec.valuesFrom: values from %s were not checked: only spec.values is, and values from it may change what the chart renders", n)
	}
	return d
}

// admitCatalog renders a catalog release's values against the goldens in
// the cluster: CatalogEntryImmutable, DuplicateCatalogEntry and every
// check catalog.Render makes refuse it, unless it is an update whose every
// refusal stood before it (see standing).
func (v *Validator) admitCatalog(ctx context.Context, obj map[string]any, oldObj func() (map[string]any, bool)) decision {
	t := releaseTarget(obj)
	if err := v.denied(); err != nil {
		return readFailure(subjectCatalog, err, "the goldens in the cluster")
	}
	st, err := v.state.Read(ctx, catalog.RenderNeeds())
	if err != nil {
		return readFailure(subjectCatalog, err, "the goldens in the cluster")
	}
	snap := state.NewSnapshot(st)
	cat, err := v.releaseCatalog(ctx, obj)
	if err != nil {
		return readFailure(subjectCatalog, err, "the release's values")
	}
	res, _ := catalog.Render(cat, snap)
	d := decision{subject: subjectCatalog, outcome: outcomeAdmitted}
	for _, w := range res.Warnings {
		d.warn(t, w)
	}
	if len(res.Refusals) == 0 {
		return d
	}
	if o, ok := oldObj(); ok {
		if oldCat, oldRefusals, ok := v.catalogOf(ctx, o, snap); ok && standing(res.Refusals, cat, oldCat, oldRefusals) {
			d.keep(t, res.Refusals, "this update leaves the goldens they are about as they were")
			return d
		}
	}
	d.refuse(t, res.Refusals)
	return d
}

// catalogOf compiles a catalog release's values and renders them; not ok
// when its values cannot be read (nothing then stood before).
func (v *Validator) catalogOf(ctx context.Context, obj map[string]any, snap *state.Snapshot) (*catalog.Catalog, guard.Refusals, bool) {
	cat, err := v.releaseCatalog(ctx, obj)
	if err != nil {
		return nil, nil, false
	}
	res, _ := catalog.Render(cat, snap)
	return cat, res.Refusals, true
}
