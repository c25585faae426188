package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// poolObject is a KubernetesNodes of spec.
func poolObject(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind,
		"metadata": map[string]any{"namespace": namespace, "name": name},
		"spec":     spec,
	}}
}

// poolRelease is a HelmRelease of the kubernetes-nodes chart as
// cozystack-api makes it for a KubernetesNodes, with values; more is
// merged into its spec (nil values in more delete a key).
func poolRelease(namespace, name string, values map[string]any, more map[string]any) *unstructured.Unstructured {
	spec := map[string]any{
		"chartRef": map[string]any{"kind": "ExternalArtifact", "namespace": "cozy-system",
			"name": "cozystack-kubernetes-nodes-application-kubevirt-kubernetes-nodes"},
		"values":     values,
		"valuesFrom": []any{map[string]any{"kind": "Secret", "name": "cozystack-values"}},
	}
	for k, v := range more {
		if v == nil {
			delete(spec, k)
		} else {
			spec[k] = v
		}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"namespace": namespace, "name": name},
		"spec":     spec,
	}}
}

// clonesOld is a pool spec whose next render clones the golden of
// fixtures.OldVersion (its schematic ID the chart's default, from talos).
func clonesOld() map[string]any {
	return map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{"version": fixtures.OldVersion}}}
}

// TestPoolConsumers: each pool kind that will clone the retired golden
// OldGolden is its consumer and keeps prune from reporting it safe to
// delete; its neighbour, just clear of the rule, is no consumer and leaves
// the golden safe to delete.
func TestPoolConsumers(t *testing.T) {
	const ns = fixtures.TenantNamespace
	noCatalog := catalog.Compile(catalog.Values{Enabled: true, Images: []catalog.Image{}})
	cases := map[string]struct {
		reason string
		objs   []client.Object
		// observed leaves out these kinds.
		unobserved state.Kind
		want       []catalog.Consumer
		safe       bool
		warned     []string
	}{
		"KubernetesNodes clones it": {
			reason: "a pool whose spec clones the golden uses it before any disk of it exists",
			objs:   []client.Object{poolObject(ns, "demo-md1", clonesOld())},
			want:   []catalog.Consumer{{Kind: state.KubernetesNodes.String(), Namespace: ns, Name: "demo-md1", Pool: "kubernetes-demo-md1"}},
		},
		"KubernetesNodes imports over HTTP": {
			reason: "neighbour: a pool whose spec imports over HTTP clones nothing",
			objs: []client.Object{poolObject(ns, "demo-md1", map[string]any{"cluster": "demo",
				"osImage": map[string]any{"factory": map[string]any{"version": fixtures.OldVersion}}})},
			safe: true,
		},
		"KubernetesNodes with no osImage": {
			reason: "neighbour: the pre-feature pool imports over HTTP",
			objs:   []client.Object{poolObject(ns, "demo-md1", map[string]any{"cluster": "demo", "talos": map[string]any{"version": fixtures.OldVersion}})},
			safe:   true,
		},
		"KubernetesNodes names another golden": {
			reason: "neighbour: a pool that clones the default flavor is no consumer of the retired one",
			objs: []client.Object{poolObject(ns, "demo-md1", map[string]any{"cluster": "demo",
				"osImage": map[string]any{"builtin": map[string]any{}}})},
			safe: true,
		},
		"KubernetesNodes with its flavor from talos": {
			reason: "builtin {} takes both parts from talos.*, as the planner defaults them",
			objs: []client.Object{poolObject(ns, "demo-md1", map[string]any{"cluster": "demo",
				"talos": map[string]any{"version": fixtures.OldVersion}, "osImage": map[string]any{"builtin": map[string]any{}}})},
			want: []catalog.Consumer{{Kind: state.KubernetesNodes.String(), Namespace: ns, Name: "demo-md1", Pool: "kubernetes-demo-md1"}},
		},
		"KubernetesNodes with builtin and factory": {
			reason: "a plan refuses both, but which one a render takes is not known: keeping the golden is the safe answer",
			objs: []client.Object{poolObject(ns, "demo-md1", map[string]any{"cluster": "demo", "osImage": map[string]any{
				"builtin": map[string]any{"version": fixtures.OldVersion}, "factory": map[string]any{}}})},
			want: []catalog.Consumer{{Kind: state.KubernetesNodes.String(), Namespace: ns, Name: "demo-md1", Pool: "kubernetes-demo-md1"}},
		},
		"KubernetesNodes unobserved": {
			reason:     "pools that could not be read may clone it: nothing is safe to delete",
			objs:       []client.Object{poolObject(ns, "demo-md1", clonesOld())},
			unobserved: state.KubernetesNodes,
			warned:     []string{"KubernetesNodes"},
		},
		"HelmRelease clones it": {
			reason: "a kubernetes-nodes release, the pool as Flux installs it, named by its release without the prefix",
			objs:   []client.Object{poolRelease(ns, "kubernetes-nodes-demo-md1", clonesOld(), nil)},
			want:   []catalog.Consumer{{Kind: state.HelmRelease.String(), Namespace: ns, Name: "kubernetes-nodes-demo-md1", Pool: "kubernetes-demo-md1"}},
		},
		"HelmRelease of a ComputePlane pool": {
			reason: "a ComputePlane's pool comes through its release kubernetes-nodes-computeplane-cluster-<pool>",
			objs:   []client.Object{poolRelease(ns, "kubernetes-nodes-computeplane-cluster-gpu", clonesOld(), nil)},
			want: []catalog.Consumer{{Kind: state.HelmRelease.String(), Namespace: ns, Name: "kubernetes-nodes-computeplane-cluster-gpu",
				Pool: "kubernetes-computeplane-cluster-gpu"}},
		},
		"HelmRelease by its chart's name": {
			reason: "a release of the chart from a HelmRepository, as a person writes it",
			objs: []client.Object{poolRelease(ns, "kubernetes-nodes-demo-md1", clonesOld(), map[string]any{"chartRef": nil,
				"chart": map[string]any{"spec": map[string]any{"chart": "kubernetes-nodes"}}})},
			want: []catalog.Consumer{{Kind: state.HelmRelease.String(), Namespace: ns, Name: "kubernetes-nodes-demo-md1", Pool: "kubernetes-demo-md1"}},
		},
		"HelmRelease of another chart": {
			reason: "neighbour: the same values in a release of another chart clone nothing",
			objs: []client.Object{poolRelease(ns, "kubernetes-nodes-demo-md1", clonesOld(), map[string]any{"chartRef": map[string]any{
				"kind": "ExternalArtifact", "namespace": "cozy-system", "name": "cozystack-kubernetes-application-default-kubernetes"}})},
			safe: true,
		},
		"HelmRelease without the prefix": {
			reason: "neighbour: the chart renders nothing for a release not named kubernetes-nodes-<cluster>-<pool>",
			objs:   []client.Object{poolRelease(ns, "demo-md1", clonesOld(), nil)},
			safe:   true,
		},
		"HelmRelease with values from a ConfigMap": {
			reason: "values not read may pick the golden: nothing is safe to delete, and the release is named",
			objs: []client.Object{poolRelease(ns, "kubernetes-nodes-demo-md1", map[string]any{"cluster": "demo"}, map[string]any{
				"valuesFrom": []any{map[string]any{"kind": "ConfigMap", "name": "pool-values"}}})},
			warned: []string{"HelmRelease"},
		},
		"HelmRelease unobserved": {
			reason:     "releases that could not be read may clone it: nothing is safe to delete",
			unobserved: state.HelmRelease,
			warned:     []string{"HelmRelease"},
		},
		"both, one pool": {
			reason: "a KubernetesNodes and the release cozystack-api made of it are two consumers of one pool",
			objs:   []client.Object{poolObject(ns, "demo-md1", clonesOld()), poolRelease(ns, "kubernetes-nodes-demo-md1", clonesOld(), nil)},
			want: []catalog.Consumer{
				{Kind: state.KubernetesNodes.String(), Namespace: ns, Name: "demo-md1", Pool: "kubernetes-demo-md1"},
				{Kind: state.HelmRelease.String(), Namespace: ns, Name: "kubernetes-nodes-demo-md1", Pool: "kubernetes-demo-md1"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := fixtures.State(state.AllKinds&^tc.unobserved, append(fixtures.Cluster(), tc.objs...)...)
			snap := state.NewSnapshot(st)
			got := catalog.Consumers(fixtures.OldGolden, snap, plan.PoolGolden)
			want := tc.want
			if want == nil {
				want = []catalog.Consumer{}
			}
			assert.ElementsMatch(t, want, got.Consumers, tc.reason)
			assert.Equal(t, tc.warned, stateUnverified(got.Warnings), tc.reason)
			pools := map[string]bool{}
			for _, c := range want {
				pools[c.Pool] = true
			}
			assert.Equal(t, len(pools), got.BlastRadius.Pools, "%s: the radius counts each pool once", tc.reason)

			rep := catalog.Prune(noCatalog, snap, plan.PoolGolden)
			if tc.safe {
				assert.Equal(t, []string{fixtures.OldGolden}, rep.SafeToDelete, tc.reason)
			} else {
				assert.NotContains(t, rep.SafeToDelete, fixtures.OldGolden, tc.reason)
			}
			assert.Equal(t, tc.warned, stateUnverified(rep.Warnings), tc.reason)
			kept := false
			for _, k := range rep.Kept {
				if k.Name == fixtures.OldGolden {
					kept = true
					assert.ElementsMatch(t, want, k.Consumers, tc.reason)
				}
			}
			assert.Equal(t, len(want) > 0, kept, "%s: kept with its consumers exactly when something clones it", tc.reason)
		})
	}
}

func stateUnverified(ws guard.Warnings) []string {
	var kinds []string
	for _, w := range ws {
		if w.Reason == guard.StateUnverified {
			kinds = append(kinds, w.Kind)
		}
	}
	return kinds
}

// TestPoolGoldenIsThePlans: the golden PoolGolden reads of a pool is the
// one its plan clones, whatever the catalog says of it.
func TestPoolGoldenIsThePlans(t *testing.T) {
	obj := poolObject(fixtures.TenantNamespace, fixtures.PoolName, map[string]any{"cluster": fixtures.ClusterName,
		"osImage": map[string]any{"builtin": map[string]any{}}})
	pool, err := plan.PoolFromObject(obj.Object)
	require.NoError(t, err)
	res, err := plan.Plan(pool, enabledCatalog(), state.NewSnapshot(fixtures.State(state.AllKinds, fixtures.Cluster()...)))
	require.NoError(t, err)
	capi, golden, err := plan.PoolGolden(state.KubernetesNodes, obj)
	require.NoError(t, err)
	assert.Equal(t, res.Golden, golden)
	assert.Equal(t, "kubernetes-"+fixtures.PoolName, capi)

	_, _, err = plan.PoolGolden(state.DataVolume, obj)
	assert.Error(t, err, "only pools are read as pools")
	_, _, err = plan.PoolGolden(state.KubernetesNodes, &unstructured.Unstructured{Object: map[string]any{"kind": "Pod", "apiVersion": "v1"}})
	assert.Error(t, err, "an object that is not a KubernetesNodes is said so")
}
