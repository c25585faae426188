package poolrelease_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
)

func TestOf(t *testing.T) {
	cozystack := map[string]any{"kind": "ExternalArtifact", "namespace": "cozy-system", "name": "cozystack-kubernetes-nodes-application-kubevirt-kubernetes-nodes"}
	labels := map[string]any{poolrelease.KindLabel: "KubernetesNodes", poolrelease.GroupLabel: "apps.cozystack.io"}
	release := func(name string, labels map[string]any, spec map[string]any) map[string]any {
		meta := map[string]any{"namespace": "tenant-demo", "name": name}
		if labels != nil {
			meta["labels"] = labels
		}
		return map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": meta, "spec": spec}
	}
	pool := func(ns, name, field, p string) *poolrelease.Release {
		return &poolrelease.Release{Namespace: ns, Name: name, NameField: field, Pool: p}
	}
	cases := map[string]struct {
		reason string
		obj    map[string]any
		want   *poolrelease.Release // nil: no pool
	}{
		"chartRef": {
			"the chartRef Cozystack's ApplicationDefinition names",
			release("kubernetes-nodes-demo-md0", nil, map[string]any{"chartRef": cozystack}),
			pool("tenant-demo", "kubernetes-nodes-demo-md0", "metadata.name", "demo-md0"),
		},
		"chartRef in the release's namespace": {
			"a chartRef without a namespace is in the release's, not cozy-system",
			release("kubernetes-nodes-demo-md0", nil, map[string]any{"chartRef": map[string]any{"kind": "ExternalArtifact", "name": cozystack["name"]}}),
			nil,
		},
		"chartRef of another kind": {
			"an OCIRepository of the same name is another source",
			release("kubernetes-nodes-demo-md0", nil, map[string]any{"chartRef": map[string]any{"kind": "OCIRepository", "namespace": "cozy-system", "name": cozystack["name"]}}),
			nil,
		},
		"chart.spec.chart": {
			"a HelmRepository chart named kubernetes-nodes, as a person writes it",
			release("kubernetes-nodes-demo-md1", nil, map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "kubernetes-nodes"}}}),
			pool("tenant-demo", "kubernetes-nodes-demo-md1", "metadata.name", "demo-md1"),
		},
		"cozystack-api labels": {
			"the labels cozystack-api gives a KubernetesNodes' release, whatever its chart says",
			release("kubernetes-nodes-demo-md2", labels, map[string]any{"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "renamed"}}),
			pool("tenant-demo", "kubernetes-nodes-demo-md2", "metadata.name", "demo-md2"),
		},
		"labels of another application": {
			"a Postgres's labels make no pool",
			release("kubernetes-nodes-demo-md2", map[string]any{poolrelease.KindLabel: "Postgres", poolrelease.GroupLabel: "apps.cozystack.io"}, map[string]any{}),
			nil,
		},
		"kind label of another group": {
			"the kind label alone, of another group, makes no pool",
			release("kubernetes-nodes-demo-md2", map[string]any{poolrelease.KindLabel: "KubernetesNodes", poolrelease.GroupLabel: "example.com"}, map[string]any{}),
			nil,
		},
		"releaseName": {
			"Flux names the Helm release spec.releaseName",
			release("anything", nil, map[string]any{"chartRef": cozystack, "releaseName": "kubernetes-nodes-other-md1"}),
			pool("tenant-demo", "kubernetes-nodes-other-md1", "spec.releaseName", "other-md1"),
		},
		"targetNamespace": {
			"in spec.targetNamespace, named <targetNamespace>-<name>",
			release("md0", nil, map[string]any{"chartRef": cozystack, "targetNamespace": "kubernetes-nodes-x"}),
			pool("kubernetes-nodes-x", "kubernetes-nodes-x-md0", "metadata.name", "x-md0"),
		},
		"no prefix": {
			"a pool's release without the prefix: the chart renders nothing of it",
			release("demo-md0", nil, map[string]any{"chartRef": cozystack}),
			pool("tenant-demo", "demo-md0", "metadata.name", ""),
		},
		"only the prefix": {
			"the prefix and nothing after names no pool",
			release("kubernetes-nodes-", nil, map[string]any{"chartRef": cozystack}),
			pool("tenant-demo", "kubernetes-nodes-", "metadata.name", ""),
		},
		"other chart": {
			"another chart's release, named as a pool's, is none",
			release("kubernetes-nodes-demo-md0", nil, map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "postgres"}}}),
			nil,
		},
		"other chartRef": {
			"another ExternalArtifact in cozy-system",
			release("kubernetes-nodes-demo-md0", nil, map[string]any{"chartRef": map[string]any{"kind": "ExternalArtifact", "namespace": "cozy-system",
				"name": "cozystack-kubernetes-application-default-kubernetes"}}),
			nil,
		},
		"no spec": {
			"a release without a spec is of no chart",
			map[string]any{"metadata": map[string]any{"namespace": "tenant-demo", "name": "kubernetes-nodes-demo-md0"}},
			nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, ok := poolrelease.Of(tc.obj, poolrelease.Pools)
			var got *poolrelease.Release
			if ok {
				got = &r
			}
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}

func TestValuesAndUnread(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{
		"values": map[string]any{"cluster": "demo", "_cluster": map[string]any{"x": 1}},
		"valuesFrom": []any{
			map[string]any{"kind": "Secret", "name": "cozystack-values"},
			map[string]any{"kind": "ConfigMap", "name": "pool-overrides"},
		},
	}}
	assert.Equal(t, map[string]any{"cluster": "demo"}, poolrelease.Values(obj), "the \"_\" keys are dropped")
	assert.Equal(t, []string{"ConfigMap pool-overrides"}, poolrelease.Unread(obj), "the platform's Secret changes nothing; another entry may")
	assert.Equal(t, []any{1}, poolrelease.Values(map[string]any{"spec": map[string]any{"values": []any{1}}}), "values that are not a map are left for the decoder to refuse")
}
