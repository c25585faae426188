// Package poolrelease recognises a Flux HelmRelease of the
// kubernetes-nodes chart, a worker pool, and reads which pool it deploys.
// Every surface that meets a HelmRelease (the consumer count, the
// admission webhook, the controller) asks here, so that they agree on
// what is a pool.
//
// The kubernetes-nodes chart's releases are made as Cozystack makes them
// (cozystack-api's pkg/registry/apps/application/rest.go
// convertApplicationToHelmRelease, and the ApplicationDefinition
// kubernetes-nodes in packages/system/kubernetes-nodes-rd, in
// cozystack/cozystack): named <Prefix><name> in the pool's namespace,
// with the ApplicationDefinition's chartRef, the pool's spec as
// spec.values, and the labels cozystack-api recognises its releases by.
package poolrelease

import (
	"strings"

	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
)

// Prefix starts the Helm release name of a pool: the chart names the pool
// by what follows (kubernetes-nodes.groupName in templates/_helpers.tpl)
// and renders nothing of a release without it.
const Prefix = "kubernetes-nodes-"

// The labels cozystack-api gives the release of an application
// (hasRequiredApplicationLabels); a KubernetesNodes' release carries kind
// KubernetesNodes, group apps.cozystack.io.
const (
	KindLabel  = "apps.cozystack.io/application.kind"
	GroupLabel = "apps.cozystack.io/application.group"

	poolKind  = "KubernetesNodes"
	poolGroup = "apps.cozystack.io"
)

// PlatformValues is the Secret every Cozystack release takes values from
// (spec.valuesFrom); it holds the platform's "_" keys only, which no pool
// value depends on.
const PlatformValues = "cozystack-values"

// Chart says how the releases of one chart are recognised: by the Flux
// source their spec.chartRef names (Cozystack's way; the ref's namespace
// defaults to the release's), or by the chart name of a spec.chart
// template (a HelmRepository chart, as a person writes it). A Chart
// without RefName matches no chartRef; one without Name no template.
type Chart struct {
	Name                           string
	RefKind, RefNamespace, RefName string
}

// Pools is the kubernetes-nodes chart as Cozystack releases it: the
// chartRef of the ApplicationDefinition kubernetes-nodes, the
// ExternalArtifact cozystack-operator names
// <PackageSource>-<variant>-<component> for the kubernetes-nodes component
// of the cozystack.kubernetes-nodes-application package's kubevirt
// variant.
var Pools = Chart{
	Name:         "kubernetes-nodes",
	RefKind:      "ExternalArtifact",
	RefNamespace: "cozy-system",
	RefName:      "cozystack-kubernetes-nodes-application-kubevirt-kubernetes-nodes",
}

// Matches reports whether a HelmRelease (meta and spec its metadata and
// spec) is of chart c.
func (c Chart) Matches(meta, spec map[string]any) bool {
	if c.RefName != "" {
		if ref, ok := chartvalues.Map(spec["chartRef"]); ok {
			ns, _ := ref["namespace"].(string)
			if ns == "" {
				ns, _ = meta["namespace"].(string)
			}
			if ref["kind"] == c.RefKind && ref["name"] == c.RefName && ns == c.RefNamespace {
				return true
			}
		}
	}
	if c.Name != "" {
		chart, _ := chartvalues.Map(spec["chart"])
		template, _ := chartvalues.Map(chart["spec"])
		if template["chart"] == c.Name {
			return true
		}
	}
	return false
}

// Release is the pool a kubernetes-nodes release deploys.
type Release struct {
	// Namespace is where Flux installs it: spec.targetNamespace when set,
	// else the HelmRelease's namespace.
	Namespace string
	// Name is its Helm release name: spec.releaseName, else
	// [targetNamespace-]metadata.name, as Flux names it.
	Name string
	// NameField is where Name comes from: spec.releaseName or
	// metadata.name.
	NameField string
	// Pool is the pool's name, Name without Prefix; "" when Name lacks
	// the prefix, of which the chart renders nothing.
	Pool string
}

// Of reports whether obj, a HelmRelease, is a pool: a release of chart
// (Pools unless the caller recognises another source), or one carrying
// the labels cozystack-api gives a KubernetesNodes' release; and reads
// which pool. For example, a release kubernetes-nodes-demo-md0 in
// tenant-demo of Pools' chartRef is pool demo-md0 in tenant-demo; one of
// a chartRef to another chart is no pool (ok false); one of the chart
// named demo-md0 is a pool whose Pool is "" (the chart refuses to render
// it).
func Of(obj map[string]any, chart Chart) (r Release, ok bool) {
	meta, _ := chartvalues.Map(obj["metadata"])
	spec, _ := chartvalues.Map(obj["spec"])
	labels, _ := chartvalues.Map(meta["labels"])
	if !(labels[KindLabel] == poolKind && labels[GroupLabel] == poolGroup) && !chart.Matches(meta, spec) {
		return Release{}, false
	}
	r.Namespace, _ = meta["namespace"].(string)
	r.Name, _ = meta["name"].(string)
	r.NameField = "metadata.name"
	if tn, _ := spec["targetNamespace"].(string); tn != "" {
		r.Namespace, r.Name = tn, tn+"-"+r.Name
	}
	if rn, _ := spec["releaseName"].(string); rn != "" {
		r.Name, r.NameField = rn, "spec.releaseName"
	}
	if pool, cut := strings.CutPrefix(r.Name, Prefix); cut {
		r.Pool = pool
	}
	return r, true
}

// Values are a release's spec.values as the chart receives them: without
// the keys that start with "_", which Cozystack reserves for the values
// it injects (cozystack-api refuses them in an application's spec and
// drops them when it reads a release back: filterInternalKeys in
// pkg/registry/apps/application/rest.go). Values that are not a map are
// returned as they are, for the decoder to refuse.
func Values(obj map[string]any) any {
	spec, _ := chartvalues.Map(obj["spec"])
	values, present := spec["values"]
	m, ok := chartvalues.Map(values)
	if !present || !ok {
		return values
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !strings.HasPrefix(k, "_") {
			out[k] = v
		}
	}
	return out
}

// Unread are the spec.valuesFrom entries of a release ("ConfigMap name")
// that may change its values: every one but Cozystack's platform Secret.
func Unread(obj map[string]any) []string {
	spec, _ := chartvalues.Map(obj["spec"])
	refs, _ := spec["valuesFrom"].([]any)
	var out []string
	for _, r := range refs {
		ref, _ := chartvalues.Map(r)
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		if kind == "Secret" && name == PlatformValues {
			continue
		}
		out = append(out, kind+" "+name)
	}
	return out
}
