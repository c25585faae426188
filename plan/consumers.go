package plan

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
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

// poolOfRelease reads the pool of a kubernetes-nodes HelmRelease
// (poolrelease.Of); ok is false for a release of another chart, or one
// the chart renders nothing of.
func poolOfRelease(obj map[string]any) (Pool, bool, error) {
	r, ok := poolrelease.Of(obj, poolrelease.Pools)
	if !ok || r.Pool == "" {
		return Pool{}, false, nil
	}
	if unread := poolrelease.Unread(obj); len(unread) > 0 {
		return Pool{}, false, fmt.Errorf("its spec.valuesFrom takes values from %s, which were not read and may pick the golden", unread[0])
	}
	return DecodePool(r.Namespace, r.Pool, poolrelease.Values(obj)), true, nil
}
