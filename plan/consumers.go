package plan

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

var _ catalog.PoolReader = PoolGolden

// PoolGolden is the catalog.PoolReader that reads a pool as Plan does: the
// golden a pool clones is the one its plan clones, so that a golden a plan
// clones is never safe to delete (catalog.Prune). Pass it to
// catalog.NewConsumerIndex, catalog.Consumers and catalog.Prune.
//
// A KubernetesNodes is read as PoolFromObject reads it. A HelmRelease is a
// pool when it is of the kubernetes-nodes chart (its spec.chartRef names
// the chart's source as Cozystack releases it, or its spec.chart template
// names the chart kubernetes-nodes) or carries the labels cozystack-api
// gives a KubernetesNodes' release; its pool is its Helm release name
// without the kubernetes-nodes- prefix (a ComputePlane's pool md0 is the
// release kubernetes-nodes-computeplane-cluster-md0), its values
// spec.values without the platform's "_" keys. A release without the
// prefix is no pool: the chart renders nothing of it. A release whose
// values come from elsewhere too (spec.valuesFrom names a ConfigMap or a
// Secret other than the platform's cozystack-values) is an error: those
// values, which are not read, may pick another golden.
//
// The golden is the flavor of osImage.builtin, each part defaulted from
// talos.*, named as the catalog names it, whatever else the plan says of
// the pool: a pool that sets osImage.factory beside it, which Plan refuses,
// clones it too, since which of the two a render takes is not the
// library's to guess, and keeping a golden is the safe answer. A pool
// without osImage.builtin imports over HTTP and clones none; so does one
// whose flavor names no golden.
func PoolGolden(kind state.Kind, obj *unstructured.Unstructured) (pool, golden string, err error) {
	var p Pool
	switch kind {
	case state.KubernetesNodes:
		if p, err = PoolFromObject(obj.Object); err != nil {
			return "", "", err
		}
	case state.HelmRelease:
		var ok bool
		if p, ok, err = poolOfRelease(obj.Object); !ok || err != nil {
			return "", "", err
		}
	default:
		return "", "", fmt.Errorf("a %v is not a pool; pools are KubernetesNodes and HelmReleases", kind)
	}
	return naming.PoolCAPIName(p.Name), p.Spec.clonedGolden(), nil
}

// clonedGolden is the golden a pool's values clone, "" for none.
func (s *PoolSpec) clonedGolden() string {
	img := s.OSImage
	if img == nil || img.Builtin == nil {
		return ""
	}
	f, _, _ := s.builtinFlavor(img.Builtin)
	return golden.NameOf(f.SchematicID, f.Version)
}

// The kubernetes-nodes chart's releases, as Cozystack makes them
// (cozystack-api's pkg/registry/apps/application/rest.go
// convertApplicationToHelmRelease, and the ApplicationDefinition
// kubernetes-nodes in packages/system/kubernetes-nodes-rd in
// cozystack/cozystack).
const (
	poolReleasePrefix = "kubernetes-nodes-"
	poolChartName     = "kubernetes-nodes"
	poolChartRefKind  = "ExternalArtifact"
	poolChartRefName  = "cozystack-kubernetes-nodes-application-kubevirt-kubernetes-nodes"
	poolChartRefNS    = "cozy-system"
	applicationKind   = "apps.cozystack.io/application.kind"
	applicationGroup  = "apps.cozystack.io/application.group"
	platformValues    = "cozystack-values"
	poolGroup         = "apps.cozystack.io"
)

// poolOfRelease reads the pool of a kubernetes-nodes HelmRelease; ok is
// false for a release of another chart, or one the chart renders nothing
// of.
func poolOfRelease(obj map[string]any) (Pool, bool, error) {
	meta, _ := chartvalues.Map(obj["metadata"])
	spec, _ := chartvalues.Map(obj["spec"])
	if !isPoolRelease(meta, spec) {
		return Pool{}, false, nil
	}
	namespace, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	// Flux names the Helm release spec.releaseName, else
	// [targetNamespace-]name, in spec.targetNamespace when set.
	release := name
	if tn, _ := spec["targetNamespace"].(string); tn != "" {
		namespace, release = tn, tn+"-"+name
	}
	if rn, _ := spec["releaseName"].(string); rn != "" {
		release = rn
	}
	pool, ok := strings.CutPrefix(release, poolReleasePrefix)
	if !ok || pool == "" {
		return Pool{}, false, nil
	}
	refs, _ := spec["valuesFrom"].([]any)
	for _, r := range refs {
		ref, _ := chartvalues.Map(r)
		kind, _ := ref["kind"].(string)
		from, _ := ref["name"].(string)
		if kind != "Secret" || from != platformValues {
			return Pool{}, false, fmt.Errorf("its spec.valuesFrom takes values from %s %s, which were not read and may pick the golden", kind, from)
		}
	}
	values := spec["values"]
	if m, isMap := chartvalues.Map(values); isMap {
		own := make(map[string]any, len(m))
		for k, v := range m {
			if !strings.HasPrefix(k, "_") {
				own[k] = v
			}
		}
		values = own
	}
	return DecodePool(namespace, pool, values), true, nil
}

// isPoolRelease reports whether a HelmRelease is of the kubernetes-nodes
// chart: by its chartRef, by its chart template's chart name, or by the
// labels cozystack-api gives the release of a KubernetesNodes.
func isPoolRelease(meta, spec map[string]any) bool {
	labels, _ := chartvalues.Map(meta["labels"])
	if labels[applicationKind] == PoolKind && labels[applicationGroup] == poolGroup {
		return true
	}
	if ref, ok := chartvalues.Map(spec["chartRef"]); ok {
		ns, _ := ref["namespace"].(string)
		if ns == "" {
			ns, _ = meta["namespace"].(string)
		}
		if ref["kind"] == poolChartRefKind && ref["name"] == poolChartRefName && ns == poolChartRefNS {
			return true
		}
	}
	chart, _ := chartvalues.Map(spec["chart"])
	template, _ := chartvalues.Map(chart["spec"])
	return template["chart"] == poolChartName
}
