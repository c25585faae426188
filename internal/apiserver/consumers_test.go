package apiserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Retired goldens of the pools below: in cozy-public, in no catalog entry,
// and no disk of any of them exists.
var (
	retiredByPool    = retired("v1.10.9") // a live KubernetesNodes' spec clones it
	retiredByRelease = retired("v1.10.8") // a ComputePlane pool's HelmRelease clones it
	retiredUnused    = retired("v1.10.7") // only look-alikes name it
)

func retired(version string) string {
	n, _ := naming.GoldenName(fixtures.DefaultSchematicID, version, nil, nil)
	return n
}

// livePoolObjects are the pools of the scenario: a KubernetesNodes that
// clones retiredByPool, a ComputePlane pool's kubernetes-nodes release
// that clones retiredByRelease, and, just clear of the rule, a pool that
// imports retiredUnused's flavor over HTTP and a release of another chart
// whose values would clone it.
func livePoolObjects() []*unstructured.Unstructured {
	ns := fixtures.TenantNamespace
	builtin := func(version string) map[string]any {
		return map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{"version": version}}}
	}
	release := func(name string, chartRef map[string]any, values map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"namespace": ns, "name": name},
			"spec": map[string]any{"chartRef": chartRef, "values": values, "interval": "5m",
				"valuesFrom": []any{map[string]any{"kind": "Secret", "name": "cozystack-values"}}},
		}}
	}
	pool := func(name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind,
			"metadata": map[string]any{"namespace": ns, "name": name},
			"spec":     spec,
		}}
	}
	return []*unstructured.Unstructured{
		pool("demo-md7", builtin("v1.10.9")),
		release("kubernetes-nodes-computeplane-cluster-gpu", map[string]any{"kind": "ExternalArtifact", "namespace": "cozy-system",
			"name": "cozystack-kubernetes-nodes-application-kubevirt-kubernetes-nodes"}, map[string]any{
			"cluster": "computeplane-cluster", "osImage": map[string]any{"builtin": map[string]any{"version": "v1.10.8"}}}),
		pool("demo-md8", map[string]any{"cluster": "demo", "osImage": map[string]any{"factory": map[string]any{"version": "v1.10.7"}}}),
		release("kubernetes-nodes-other", map[string]any{"kind": "ExternalArtifact", "namespace": "cozy-system",
			"name": "cozystack-kubernetes-application-default-kubernetes"}, builtin("v1.10.7")),
	}
}

// serveHelmReleases installs Flux's HelmRelease CRD, once per control plane.
func serveHelmReleases(t *testing.T, e *apiserver.Env) {
	t.Helper()
	installHelmReleases.Do(func() {
		_, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{helmReleaseCRD()}})
		require.NoError(t, err, "install the HelmRelease CRD")
	})
}

// The scenario on the real API server: a live pool whose spec
// clones a retired golden of which no disk exists yet. plan says it clones
// that golden; consumers lists the pool; prune keeps the golden. A
// ComputePlane pool's release keeps its golden the same way; what only
// looks like a pool (an HTTP import, another chart's release) keeps
// nothing. A user who may not list HelmReleases gets nothing safe to
// delete, and a warning that says why. Both live readers see the pools the
// CLI sees.
func TestLivePoolsKeepTheirGoldens(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	serveHelmReleases(t, e)
	for _, g := range []string{retiredByPool, retiredByRelease, retiredUnused} {
		version := g[len(g)-len("v1.10.9"):]
		p := fixtures.GoldenPVC(g, version, fixtures.ReplicatedClass, "6Gi")
		e.Create(t, p)
		removed(t, e, p)
	}
	for _, o := range livePoolObjects() {
		require.NoError(t, e.Client.Create(context.Background(), o), "create %s %s", o.GetKind(), o.GetName())
		removed(t, e, o)
	}
	t.Setenv("KUBECONFIG", "")
	kc := kubeconfigOf(t, e.Config, fixtures.TenantNamespace)

	t.Run("plan clones the golden", func(t *testing.T) {
		cat := writeFile(t, "catalog.yaml", "enabled: true\nimages:\n- {schematicID: "+fixtures.DefaultSchematicID+", version: v1.10.9}\n")
		code, stdout, stderr := run(t, "", "plan", "kubernetesnodes/demo-md7", "--kubeconfig", kc, "--catalog", cat, "-o", "json")
		require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
		var out struct {
			Pools []struct{ Outcome, Golden string }
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
		require.Len(t, out.Pools, 1)
		assert.Equal(t, "planned", out.Pools[0].Outcome)
		assert.Equal(t, retiredByPool, out.Pools[0].Golden)
	})

	t.Run("consumers lists the pools", func(t *testing.T) {
		for golden, want := range map[string][]catalog.Consumer{
			retiredByPool: {{Kind: state.KubernetesNodes.String(), Namespace: fixtures.TenantNamespace, Name: "demo-md7", Pool: "kubernetes-demo-md7"}},
			retiredByRelease: {{Kind: state.HelmRelease.String(), Namespace: fixtures.TenantNamespace,
				Name: "kubernetes-nodes-computeplane-cluster-gpu", Pool: "kubernetes-computeplane-cluster-gpu"}},
			retiredUnused: {},
		} {
			code, stdout, stderr := run(t, "", "catalog", "consumers", golden, "--kubeconfig", kc, "-o", "json")
			require.Equal(t, 0, code, stderr)
			var res catalog.ConsumersResult
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			assert.Equal(t, want, res.Consumers, golden)
			assert.Empty(t, res.Warnings, "every consumer kind was read: %s", golden)
			assert.Equal(t, len(want), res.BlastRadius.Pools, golden)
		}
	})

	prune := func(t *testing.T, kubeconfig string) catalog.PruneReport {
		t.Helper()
		cat := writeFile(t, "catalog.yaml", "enabled: true\n")
		code, stdout, stderr := run(t, "", "catalog", "prune", "--catalog", cat, "--kubeconfig", kubeconfig, "-o", "json")
		require.Equal(t, 0, code, stderr)
		var rep catalog.PruneReport
		require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
		return rep
	}
	kept := func(rep catalog.PruneReport) map[string][]catalog.Consumer {
		m := map[string][]catalog.Consumer{}
		for _, k := range rep.Kept {
			m[k.Name] = k.Consumers
		}
		return m
	}

	t.Run("prune keeps what a pool will clone", func(t *testing.T) {
		rep := prune(t, kc)
		assert.NotContains(t, rep.SafeToDelete, retiredByPool)
		assert.NotContains(t, rep.SafeToDelete, retiredByRelease)
		assert.Contains(t, rep.SafeToDelete, retiredUnused, "neighbour: an HTTP import and another chart's release clone nothing")
		k := kept(rep)
		assert.Equal(t, []catalog.Consumer{{Kind: state.KubernetesNodes.String(), Namespace: fixtures.TenantNamespace, Name: "demo-md7",
			Pool: "kubernetes-demo-md7"}}, k[retiredByPool])
		assert.Len(t, k[retiredByRelease], 1)
		assert.Empty(t, rep.Warnings)
	})

	t.Run("prune without HelmReleases deletes nothing", func(t *testing.T) {
		read := []string{"get", "list", "watch"}
		cfg := e.User(t, "pruner-without-helmreleases",
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims", "persistentvolumes"}, Verbs: read},
			rbacv1.PolicyRule{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"storageclasses", "csidrivers"}, Verbs: read},
			rbacv1.PolicyRule{APIGroups: []string{"cdi.kubevirt.io"}, Resources: []string{"*"}, Verbs: read},
			rbacv1.PolicyRule{APIGroups: []string{"snapshot.storage.k8s.io", "kubevirt.io", "infrastructure.cluster.x-k8s.io", "apps.cozystack.io"},
				Resources: []string{"*"}, Verbs: read},
		)
		cat := writeFile(t, "catalog.yaml", "enabled: true\n")
		code, stdout, stderr := run(t, "", "catalog", "prune", "--catalog", cat, "--kubeconfig", kubeconfigOf(t, cfg, fixtures.TenantNamespace), "-o", "json")
		require.Equal(t, 4, code, "a kind unread is unverified: %s", stderr)
		var rep struct {
			SafeToDelete []string
			Kept         []struct{ Name string }
			Warnings     []struct{ Reason, Kind, Message, Cause string }
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
		assert.Empty(t, rep.SafeToDelete, "a release that could not be read may clone any golden")
		require.Len(t, rep.Warnings, 1, "%v", rep.Warnings)
		w := rep.Warnings[0]
		assert.Equal(t, []string{"StateUnverified", "HelmRelease"}, []string{w.Reason, w.Kind})
		assert.Contains(t, w.Message, retiredUnused, "the warning names the goldens it kept back")
		assert.Contains(t, w.Cause, "forbidden", "and why the kind is unknown")
		var keptNames []string
		for _, k := range rep.Kept {
			keptNames = append(keptNames, k.Name)
		}
		assert.Contains(t, keptNames, retiredByPool, "what the KubernetesNodes clones is kept")
	})

	t.Run("live readers see the pools", func(t *testing.T) {
		cg, err := clientGo(t, e.Config, catalog.ConsumersNeeds())
		require.NoError(t, err)
		api, err := client.New(e.Config, client.Options{Scheme: apiserver.Scheme()})
		require.NoError(t, err)
		cr, err := controllerRuntime(api, catalog.ConsumersNeeds())
		require.NoError(t, err)
		for name, st := range map[string]*state.State{"client-go": cg, "controller-runtime": cr} {
			snap := state.NewSnapshot(st)
			idx := catalog.NewConsumerIndex(snap, plan.PoolGolden)
			assert.Empty(t, catalog.Consumers(retiredUnused, snap, plan.PoolGolden).Warnings, "%s: every kind read, every pool's golden told", name)
			assert.Len(t, idx.Of(retiredByPool), 1, name)
			assert.Len(t, idx.Of(retiredByRelease), 1, name)
			assert.Empty(t, idx.Of(retiredUnused), name)
			for _, hr := range st.HelmReleases {
				assert.NotContains(t, hr.Object, "status", "%s: a release's status is not kept", name)
			}
		}
	})
}
