package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// pendingVersion is a flavor whose golden is still importing.
const pendingVersion = "v1.13.7"

// A pool's HelmRelease as Cozystack writes it: Flux's kind, cozystack-api's
// name prefix, and the chartRef of the ExternalArtifact cozystack-operator
// makes for the kubernetes-nodes chart.
var (
	helmReleaseGVK = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}
	poolChartRef   = struct{ Kind, Namespace, Name string }{"ExternalArtifact", "cozy-system", "cozystack-kubernetes-nodes-application-kubevirt-kubernetes-nodes"}
)

const poolReleasePrefix = "kubernetes-nodes-"

func catalogValues() map[string]any {
	return map[string]any{
		"enabled": true,
		"images": []any{
			map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": fixtures.DefaultVersion},
			map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": pendingVersion},
		},
	}
}

func kubernetesNodes(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(apiserver.PoolGVK)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func helmRelease(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(helmReleaseGVK)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// builtin clones the default flavor on replicated, with more values.
func builtin(more map[string]any) map[string]any {
	spec := map[string]any{"cluster": fixtures.ClusterName, "storageClass": fixtures.ReplicatedClass, "osImage": map[string]any{"builtin": map[string]any{}}}
	for k, v := range more {
		spec[k] = v
	}
	return spec
}

// removed deletes o when the test ends.
func removed(t *testing.T, e *apiserver.Env, o client.Object) {
	t.Cleanup(func() {
		if err := e.Client.Delete(context.Background(), o); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete %s %s/%s: %v", o.GetObjectKind().GroupVersionKind().Kind, o.GetNamespace(), o.GetName(), err)
		}
	})
}

// causesOf are the reasons and fields of an Invalid error's causes.
func causesOf(t *testing.T, err error) []string {
	t.Helper()
	require.Error(t, err)
	require.True(t, apierrors.IsInvalid(err), "an Invalid status: %s", describe(err))
	var out []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		out = append(out, string(c.Type)+" "+c.Field)
	}
	return out
}

// The webhook on the real API server: KubernetesNodes served as a CRD
// (Cozystack serves them from cozystack-api, which runs the same webhooks
// itself), HelmReleases as Flux's CRD, the webhook's manager running as a
// user with exactly the manifests' RBAC, the configuration the manifests'.
func TestWebhook(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	ctx := context.Background()
	s := serveWebhook(t, e, "worker-image-webhook-test")
	c, warned := warnedClient(t, e)

	// The catalog: the default flavor (imported) and pendingVersion,
	// whose golden is importing.
	pending := fixtures.GoldenDataVolume(mustGolden(t, pendingVersion), pendingVersion, fixtures.ReplicatedClass, "6Gi", cdiv1.ImportInProgress)
	e.Create(t, pending)
	removed(t, e, pending)
	cat := helmRelease(webhook.DefaultCatalogRelease().Namespace, webhook.DefaultCatalogRelease().Name, map[string]any{
		"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-kubernetes-worker-image-default-kubernetes-worker-image"},
		"values":   catalogValues(),
	})
	err := c.Create(ctx, cat)
	require.NoError(t, err, "the catalog as its goldens are is admitted: %s", describe(err))
	removed(t, e, cat)
	apiserver.WaitCached(t, s.mgr.GetCache(), pending, cat)

	t.Run("a refused pool is denied with its refusals as causes", func(t *testing.T) {
		p := kubernetesNodes(fixtures.TenantNamespace, "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
		err := c.Create(ctx, p)
		assert.Equal(t, []string{"StorageClassMismatch spec.storageClass"}, causesOf(t, err))
		cause := err.(apierrors.APIStatus).Status().Details.Causes[0]
		assert.Contains(t, cause.Message, `"local"`, "the refusal's message, naming both classes")
		assert.Contains(t, cause.Message, `"replicated"`)
		assert.Contains(t, err.Error(), `admission webhook "kubernetesnodes.worker-image.cozystack.io" denied the request: KubernetesNodes tenant-demo/demo-gpu is refused`)
		assert.True(t, apierrors.IsNotFound(e.Client.Get(ctx, client.ObjectKeyFromObject(p), p.DeepCopy())), "nothing was created")
	})

	t.Run("a pending golden admits the pool with its warning", func(t *testing.T) {
		warned.take()
		p := kubernetesNodes(fixtures.TenantNamespace, "demo-md1", builtin(map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": pendingVersion}}}))
		err := c.Create(ctx, p)
		require.NoError(t, err, describe(err))
		removed(t, e, p)
		got := strings.Join(warned.take(), "\n")
		assert.Contains(t, got, "spec.osImage.builtin: ")
		assert.Contains(t, got, "(GoldenPending)")
	})

	t.Run("values the chart cannot read are InvalidValue", func(t *testing.T) {
		p := kubernetesNodes(fixtures.TenantNamespace, "demo-md2", builtin(map[string]any{"diskSize": map[string]any{"size": "20Gi"}}))
		assert.Equal(t, []string{"InvalidValue spec.diskSize"}, causesOf(t, c.Create(ctx, p)))
	})

	t.Run("an edit of a live golden is denied", func(t *testing.T) {
		edited := cat.DeepCopy()
		require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(cat), edited))
		images, _, _ := unstructured.NestedSlice(edited.Object, "spec", "values", "images")
		images[0].(map[string]any)["storage"] = "8Gi"
		require.NoError(t, unstructured.SetNestedSlice(edited.Object, images, "spec", "values", "images"))
		assert.Equal(t, []string{"CatalogEntryImmutable spec.values.images[0].storage"}, causesOf(t, c.Update(ctx, edited)))
	})

	t.Run("a pool's HelmRelease is planned as its pool", func(t *testing.T) {
		hr := helmRelease(fixtures.TenantNamespace, poolReleasePrefix+"demo-gpu", map[string]any{
			"chartRef": map[string]any{"kind": poolChartRef.Kind, "name": poolChartRef.Name, "namespace": poolChartRef.Namespace},
			"values":   builtin(map[string]any{"storageClass": fixtures.LocalClass}),
		})
		assert.Equal(t, []string{"StorageClassMismatch spec.values.storageClass"}, causesOf(t, c.Create(ctx, hr)))
	})

	t.Run("another chart's HelmRelease is never sent to the webhook", func(t *testing.T) {
		skipped := admissions(t, "helmreleases", "none")
		hr := helmRelease(fixtures.TenantNamespace, "postgres", map[string]any{
			"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-postgres-application-default-postgres"},
			"values":   map[string]any{"storageClass": fixtures.LocalClass, "osImage": map[string]any{"builtin": map[string]any{}}},
		})
		require.NoError(t, c.Create(ctx, hr))
		removed(t, e, hr)
		assert.Equal(t, skipped, admissions(t, "helmreleases", "none"), "matchConditions kept it from the webhook")
	})

	t.Run("a pool's own opt-out label is no opt-out", func(t *testing.T) {
		p := kubernetesNodes(fixtures.TenantNamespace, "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
		p.SetLabels(map[string]string{webhook.DisableLabel: "disabled"})
		err := c.Create(ctx, p)
		if err == nil {
			removed(t, e, p)
		}
		assert.Equal(t, []string{"StorageClassMismatch spec.storageClass"}, causesOf(t, err), "a pool's author sets its labels")

		hr := helmRelease(fixtures.TenantNamespace, poolReleasePrefix+"demo-gpu", map[string]any{
			"chartRef": map[string]any{"kind": poolChartRef.Kind, "name": poolChartRef.Name, "namespace": poolChartRef.Namespace},
			"values":   builtin(map[string]any{"storageClass": fixtures.LocalClass}),
		})
		hr.SetLabels(map[string]string{webhook.DisableLabel: "disabled"})
		err = c.Create(ctx, hr)
		if err == nil {
			removed(t, e, hr)
		}
		assert.Equal(t, []string{"StorageClassMismatch spec.values.storageClass"}, causesOf(t, err))
	})

	t.Run("a namespace an administrator labels disabled is out of the webhook", func(t *testing.T) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant-opted-out", Labels: map[string]string{webhook.DisableLabel: "disabled"}}}
		require.NoError(t, client.IgnoreAlreadyExists(e.Client.Create(ctx, ns)))
		p := kubernetesNodes(ns.Name, "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
		err := c.Create(ctx, p)
		require.NoError(t, err, "the namespace's label opts it out: %s", describe(err))
		removed(t, e, p)
	})

	t.Run("a release that becomes a pool's is judged as a create", func(t *testing.T) {
		hr := helmRelease(fixtures.TenantNamespace, poolReleasePrefix+"demo-gpu", map[string]any{
			"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-postgres-application-default-postgres"},
			"values":   builtin(map[string]any{"storageClass": fixtures.LocalClass}),
		})
		require.NoError(t, c.Create(ctx, hr), "another chart's release is not the webhook's")
		removed(t, e, hr)
		warned.take()
		became := hr.DeepCopy()
		require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(hr), became))
		require.NoError(t, unstructured.SetNestedMap(became.Object, map[string]any{
			"kind": poolChartRef.Kind, "name": poolChartRef.Name, "namespace": poolChartRef.Namespace,
		}, "spec", "chartRef"))
		assert.Equal(t, []string{"StorageClassMismatch spec.values.storageClass"}, causesOf(t, c.Update(ctx, became)),
			"there was no disk of this chart before: %q", warned.take())
	})

	t.Run("an update that leaves the disk as it was is admitted while the cluster refuses the disk", func(t *testing.T) {
		running := kubernetesNodes(fixtures.TenantNamespace, fixtures.PoolName, builtin(map[string]any{"maxReplicas": int64(3)}))
		err := c.Create(ctx, running)
		require.NoError(t, err, describe(err))
		removed(t, e, running)

		// The CDI resource now copies every clone: the running pool's disk
		// is refused HostAssistedClone, a state its update did not make.
		var cdi cdiv1.CDI
		require.NoError(t, e.Client.Get(ctx, client.ObjectKey{Name: "cdi"}, &cdi))
		restore := cdi.Spec.CloneStrategyOverride
		copyStrategy := cdiv1.CloneStrategyHostAssisted
		cdi.Spec.CloneStrategyOverride = &copyStrategy
		require.NoError(t, e.Client.Update(ctx, &cdi))
		t.Cleanup(func() {
			var cur cdiv1.CDI
			require.NoError(t, e.Client.Get(ctx, client.ObjectKey{Name: "cdi"}, &cur))
			cur.Spec.CloneStrategyOverride = restore
			require.NoError(t, e.Client.Update(ctx, &cur))
			apiserver.WaitCached(t, s.mgr.GetCache(), &cur)
		})
		apiserver.WaitCached(t, s.mgr.GetCache(), &cdi)

		warned.take()
		scaled := running.DeepCopy()
		require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(running), scaled))
		require.NoError(t, unstructured.SetNestedField(scaled.Object, int64(5), "spec", "maxReplicas"))
		err = c.Update(ctx, scaled)
		require.NoError(t, err, "more replicas leave the disk as it was: %s"+": %s", describe(err))
		got := strings.Join(warned.take(), "\n")
		assert.Contains(t, got, "still refused, admitted because this update leaves the pool's disk-system as it was")
		assert.Contains(t, got, "(HostAssistedClone)")

		resized := scaled.DeepCopy()
		require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(running), resized))
		require.NoError(t, unstructured.SetNestedField(resized.Object, "30Gi", "spec", "diskSize"))
		assert.Equal(t, []string{"HostAssistedClone spec.storageClass"}, causesOf(t, c.Update(ctx, resized)), "a new disk is judged as a create")

		again := kubernetesNodes(fixtures.TenantNamespace, "demo-md3", builtin(nil))
		assert.Equal(t, []string{"HostAssistedClone spec.storageClass"}, causesOf(t, c.Create(ctx, again)), "and a new pool is refused")
	})
}

func mustGolden(t *testing.T, version string) string {
	t.Helper()
	n, rs := naming.GoldenName(fixtures.DefaultSchematicID, version, nil, nil)
	require.Empty(t, rs)
	return n
}

// admissions counts the webhook's admissions of a resource and subject,
// over every operation and outcome.
func admissions(t *testing.T, resource, subject string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	require.NoError(t, err)
	total := 0.0
	for _, f := range families {
		if f.GetName() != "worker_image_webhook_admissions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["resource"] == resource && labels["subject"] == subject {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}
