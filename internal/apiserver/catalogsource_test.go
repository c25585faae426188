package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// The catalog of the catalog release lives partly in a valuesFrom
// ConfigMap, as Flux merges it under spec.values: the CLI, the webhook and
// the controller read it alike, so a pool of the flavor only the ConfigMap
// adds is planned by all three, and a pool of a flavor in neither is
// refused by all three.
func TestCatalogInValuesFrom(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleasesServed(t, e)
	ctx := context.Background()
	ns := webhook.DefaultCatalogRelease().Namespace
	images := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "catalog-images"}, Data: map[string]string{
		"values.yaml": "images:\n- {schematicID: " + fixtures.DefaultSchematicID + ", version: " + fixtures.DefaultVersion + "}\n" +
			"- {schematicID: " + fixtures.DefaultSchematicID + ", version: " + fixtures.OldVersion + "}\n",
	}}
	require.NoError(t, e.Client.Create(ctx, images))
	removed(t, e, images)
	cat := helmRelease(ns, webhook.DefaultCatalogRelease().Name, map[string]any{
		"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-kubernetes-worker-image-default-kubernetes-worker-image"},
		"valuesFrom": []any{
			map[string]any{"kind": "Secret", "name": "cozystack-values"},
			map[string]any{"kind": "ConfigMap", "name": "catalog-images"},
		},
		"values": map[string]any{"enabled": true},
	})
	require.NoError(t, e.Client.Create(ctx, cat))
	removed(t, e, cat)

	pools := map[string]surfaceVerdict{
		// OldVersion's golden is in the cluster, and only the ConfigMap
		// names its flavor.
		"demo-vf0": {Outcome: "planned"},
		// A flavor in no catalog, whose golden is not in the cluster.
		"demo-vf1": {Outcome: "refused", Reasons: []string{"GoldenNotInCatalog"}},
	}
	versions := map[string]string{"demo-vf0": fixtures.OldVersion, "demo-vf1": "v1.9.0"}
	// The controller runs before the pools are made: a start records no
	// Planned for a pool made before it.
	runController(t, e.Config)
	for name := range pools {
		p := kubernetesNodes(fixtures.TenantNamespace, name, builtin(map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": versions[name]}}}))
		require.NoError(t, e.Client.Create(ctx, p))
		removed(t, e, p)
	}
	t.Setenv("KUBECONFIG", "")
	kc := kubeconfigOf(t, e.Config, fixtures.TenantNamespace)
	v := webhook.New(e.Client, webhook.Options{CatalogRelease: webhook.DefaultCatalogRelease()})

	for name, want := range pools {
		p := kubernetesNodes(fixtures.TenantNamespace, name, nil)
		require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(p), p))
		assert.Equal(t, want, cliPlan(t, kc, fixtures.TenantNamespace, name), "plan %s", name)
		assert.Equal(t, want, admit(t, v, p), "the webhook on %s", name)
		assert.Equal(t, want, controllerVerdict(t, e, "KubernetesNodes", fixtures.TenantNamespace, name), "the controller on %s", name)
	}
}
