package webhook

import (
	"context"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
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
// itself, or a release of the catalog chart), a pool (a release of the
// kubernetes-nodes chart, or one cozystack-api made for a KubernetesNodes,
// by the labels it recognises its releases by), or neither.
func (v *Validator) chartOf(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	namespace, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	if key := v.opts.CatalogRelease; key.Name != "" && key.Namespace == namespace && key.Name == name {
		return subjectCatalog
	}
	if v.opts.CatalogChart.matches(obj) {
		return subjectCatalog
	}
	labels, _ := meta["labels"].(map[string]any)
	if v.opts.PoolChart.matches(obj) ||
		(labels[applicationKindLabel] == plan.PoolKind && labels[applicationGroupLabel] == poolGVK.Group) {
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
func (c Chart) matches(obj map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	if c.Ref.Name != "" {
		if ref, ok := spec["chartRef"].(map[string]any); ok {
			namespace, _ := ref["namespace"].(string)
			if namespace == "" {
				meta, _ := obj["metadata"].(map[string]any)
				namespace, _ = meta["namespace"].(string)
			}
			if ref["kind"] == c.Ref.Kind && ref["name"] == c.Ref.Name && namespace == c.Ref.Namespace {
				return true
			}
		}
	}
	if c.Name != "" {
		chart, _ := spec["chart"].(map[string]any)
		template, _ := chart["spec"].(map[string]any)
		if template["chart"] == c.Name {
			return true
		}
	}
	return false
}

// helmRelease is a HelmRelease's target: where its values sit, and the
// namespace and name Flux gives its Helm release.
func helmRelease(obj map[string]any) (t target, releaseNamespace, releaseName string) {
	meta, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	t = target{gk: helmReleaseGVK.GroupKind(), values: "spec.values"}
	t.namespace, _ = meta["namespace"].(string)
	t.name, _ = meta["name"].(string)
	// Flux: the release lives in spec.targetNamespace when set, and is
	// named spec.releaseName, else [targetNamespace-]name.
	releaseNamespace, releaseName = t.namespace, t.name
	if tn, _ := spec["targetNamespace"].(string); tn != "" {
		releaseNamespace, releaseName = tn, tn+"-"+t.name
	}
	if rn, _ := spec["releaseName"].(string); rn != "" {
		releaseName = rn
	}
	return t, releaseNamespace, releaseName
}

// poolOf reads the pool a kubernetes-nodes release deploys: the chart
// names it by its release name without the prefix (kubernetes-nodes-
// <cluster>-<pool>), and refuses to render a release name without it.
func poolOf(obj map[string]any) (plan.Pool, target, guard.Refusals) {
	t, namespace, release := helmRelease(obj)
	name, ok := strings.CutPrefix(release, poolReleasePrefix)
	var rs guard.Refusals
	if !ok || name == "" {
		fld := "metadata.name"
		if spec, _ := obj["spec"].(map[string]any); spec["releaseName"] != nil {
			fld = "spec.releaseName"
		}
		rs = guard.Refusals{{
			Reason: guard.InvalidPoolName, Field: fld, BadValue: release,
			Subject: "pool " + namespace + "/" + release,
			Detail: fmt.Sprintf("the release name %q does not start with %q, which the kubernetes-nodes chart requires and names the pool by what follows; name the release %s<cluster>-<pool>",
				release, poolReleasePrefix, poolReleasePrefix),
		}}
		name = release
	}
	return plan.DecodePool(namespace, name, releaseValues(obj)), t, rs
}

// admitPoolRelease plans the pool of a kubernetes-nodes release.
func (v *Validator) admitPoolRelease(ctx context.Context, obj map[string]any, oldObj func() (map[string]any, bool)) decision {
	pool, t, extra := poolOf(obj)
	old := func() (plan.Pool, bool) {
		o, ok := oldObj()
		if !ok {
			return plan.Pool{}, false
		}
		p, _, _ := poolOf(o)
		return p, true
	}
	d := v.admitPool(ctx, t, pool, old, extra)
	for _, n := range releaseNotes(obj) {
		d.note("%s", n)
	}
	return d
}

// admitCatalog renders a catalog release's values against the goldens in
// the cluster: CatalogEntryImmutable, DuplicateCatalogEntry and every
// check catalog.Render makes refuse it, unless it is an update whose every
// refusal stood before it (see standing).
func (v *Validator) admitCatalog(ctx context.Context, obj map[string]any, oldObj func() (map[string]any, bool)) decision {
	t, _, _ := helmRelease(obj)
	if err := v.denied(); err != nil {
		return readFailure(subjectCatalog, err, "the goldens in the cluster")
	}
	st, err := v.state.Read(ctx, catalog.RenderNeeds())
	if err != nil {
		return readFailure(subjectCatalog, err, "the goldens in the cluster")
	}
	snap := state.NewSnapshot(st)
	cat := catalog.Compile(catalog.DecodeValues(releaseValues(obj)))
	res, _ := catalog.Render(cat, snap)
	d := decision{subject: subjectCatalog, outcome: outcomeAdmitted}
	for _, w := range res.Warnings {
		d.warn(t, w)
	}
	for _, n := range releaseNotes(obj) {
		d.note("%s", n)
	}
	if len(res.Refusals) == 0 {
		return d
	}
	if o, ok := oldObj(); ok {
		oldCat, oldRefusals := catalogOf(o, snap)
		if standing(res.Refusals, cat, oldCat, oldRefusals) {
			d.keep(t, res.Refusals, "this update leaves the goldens they are about as they were")
			return d
		}
	}
	d.refuse(t, res.Refusals)
	return d
}

// catalogOf compiles a catalog release's values and renders them.
func catalogOf(obj map[string]any, snap *state.Snapshot) (*catalog.Catalog, guard.Refusals) {
	cat := catalog.Compile(catalog.DecodeValues(releaseValues(obj)))
	res, _ := catalog.Render(cat, snap)
	return cat, res.Refusals
}
