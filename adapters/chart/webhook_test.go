package chart_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartrender"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The chart's defaults are the webhook's: the catalog release it reads
// and the port it serves on.
func TestChartDefaultsAreTheWebhooks(t *testing.T) {
	values, err := chartrender.Values(chart.Files())
	require.NoError(t, err)
	release := values["catalogRelease"].(map[string]any)
	assert.Equal(t, webhook.DefaultCatalogRelease().Namespace, release["namespace"])
	assert.Equal(t, webhook.DefaultCatalogRelease().Name, release["name"])
	assert.EqualValues(t, webhook.DefaultPort, values["webhook"].(map[string]any)["port"])
}

// The webhook's RBAC reads, and only reads, exactly the kinds a pool's plan
// and a catalog render need, and the catalog release by name.
func TestChartWebhookRBAC(t *testing.T) {
	objs, err := render(t, ns, nil)
	require.NoError(t, err)
	var cr rbacv1.ClusterRole
	var role, images rbacv1.Role
	typed(t, find(objs, "ClusterRole", "worker-image-webhook"), &cr)
	typed(t, find(objs, "Role", "worker-image-webhook"), &role)
	typed(t, find(objs, "Role", "worker-image-webhook-images"), &images)
	assert.Equal(t, "cozy-system", images.Namespace)
	assert.Equal(t, []rbacv1.PolicyRule{{
		APIGroups: []string{"helm.toolkit.fluxcd.io"}, Resources: []string{"helmreleases"},
		ResourceNames: []string{"vm-default-images"}, Verbs: []string{"get"},
	}}, images.Rules, "a VMDisk's admission gets the image catalog's release, by name")

	p := plan.DecodePool("tenant-a", "demo-md0", map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}})
	need := plan.Needs(p).Merge(catalog.RenderNeeds())
	want := map[string]bool{}
	for _, r := range append(need.Gets, need.Lists...) {
		want[resourceOf(r.Kind)] = true
	}
	got := map[string]bool{}
	for _, rule := range cr.Rules {
		if slices.Equal(rule.Resources, []string{"persistentvolumes"}) {
			assert.Equal(t, []string{"get"}, rule.Verbs, "a golden's volume is got by name")
		} else {
			assert.Equal(t, []string{"get", "list", "watch"}, rule.Verbs, "read only")
		}
		assert.Empty(t, rule.ResourceNames)
		for _, res := range rule.Resources {
			got[rule.APIGroups[0]+"/"+res] = true
		}
	}
	assert.Equal(t, want, got, "exactly the kinds plan.Needs and catalog.RenderNeeds name")

	assert.Equal(t, webhook.DefaultCatalogRelease().Namespace, role.Namespace)
	assert.Equal(t, []rbacv1.PolicyRule{{
		APIGroups: []string{"helm.toolkit.fluxcd.io"}, Resources: []string{"helmreleases"},
		ResourceNames: []string{webhook.DefaultCatalogRelease().Name}, Verbs: []string{"get", "list", "watch"},
	}}, role.Rules)

	readBack, err := render(t, ns, map[string]any{"catalogRelease": map[string]any{"name": ""}})
	require.NoError(t, err)
	assert.Nil(t, find(readBack, "Role", "worker-image-webhook"), "reading the catalog back needs no release")
	assert.Nil(t, find(readBack, "RoleBinding", "worker-image-webhook"))
	assert.NotNil(t, find(readBack, "Role", "worker-image-webhook-images"), "a VMDisk still needs the image catalog")
}

// resourceOf names a kind as RBAC does, group/resource.
func resourceOf(k state.Kind) string {
	return map[state.Kind]string{
		state.StorageClass:          "storage.k8s.io/storageclasses",
		state.PersistentVolumeClaim: "/persistentvolumeclaims",
		state.DataVolume:            "cdi.kubevirt.io/datavolumes",
		state.StorageProfile:        "cdi.kubevirt.io/storageprofiles",
		state.CDI:                   "cdi.kubevirt.io/cdis",
		state.CSIDriver:             "storage.k8s.io/csidrivers",
		state.VolumeSnapshotClass:   "snapshot.storage.k8s.io/volumesnapshotclasses",
		state.CDIConfig:             "cdi.kubevirt.io/cdiconfigs",
		state.PersistentVolume:      "/persistentvolumes",
	}[k]
}

// webhooks renders the chart with set and returns its webhook
// configuration and Deployment.
func webhooks(t *testing.T, namespace string, set map[string]any) (admissionregistrationv1.ValidatingWebhookConfiguration, appsv1.Deployment) {
	t.Helper()
	objs, err := render(t, namespace, set)
	require.NoError(t, err)
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	var deploy appsv1.Deployment
	typed(t, find(objs, "ValidatingWebhookConfiguration", "worker-image-webhook"), &cfg)
	typed(t, find(objs, "Deployment", "worker-image-webhook"), &deploy)
	return cfg, deploy
}

func TestChartWebhooks(t *testing.T) {
	cfg, deploy := webhooks(t, "ops", map[string]any{
		"webhook":        map[string]any{"timeoutSeconds": 3},
		"catalogRelease": map[string]any{"namespace": "cozy-images", "name": "catalog"},
	})
	require.Len(t, cfg.Webhooks, 5)
	assert.Equal(t, "ops/worker-image-webhook", cfg.Annotations["cert-manager.io/inject-ca-from"])
	for _, h := range cfg.Webhooks {
		assert.Equal(t, admissionregistrationv1.SideEffectClassNone, *h.SideEffects, h.Name)
		assert.Equal(t, int32(3), *h.TimeoutSeconds, h.Name)
		assert.Equal(t, admissionregistrationv1.Fail, *h.FailurePolicy, h.Name)
		assert.Equal(t, admissionregistrationv1.Equivalent, *h.MatchPolicy, h.Name)
		assert.Equal(t, []string{"v1"}, h.AdmissionReviewVersions, h.Name)
		assert.Equal(t, "ops", h.ClientConfig.Service.Namespace, h.Name)
		assert.Equal(t, "worker-image-webhook", h.ClientConfig.Service.Name, h.Name)
		assert.Equal(t, int32(443), *h.ClientConfig.Service.Port, h.Name)
		require.NotNil(t, h.NamespaceSelector, h.Name)
		assert.Contains(t, h.NamespaceSelector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: webhook.DisableLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"disabled"},
		}, "%s: a namespace labelled disabled is opted out, an administrator's act", h.Name)
		assert.Nil(t, h.ObjectSelector, "%s: no object opts itself out: a pool's author sets its labels", h.Name)
		require.Len(t, h.Rules, 1, h.Name)
		assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, h.Rules[0].Operations, h.Name)
		assert.Equal(t, admissionregistrationv1.NamespacedScope, *h.Rules[0].Scope, h.Name)
	}
	pools, poolReleases, catalogReleases := cfg.Webhooks[0], cfg.Webhooks[1], cfg.Webhooks[2]
	vmDisks, vmDiskReleases := cfg.Webhooks[3], cfg.Webhooks[4]
	assert.Equal(t, []string{"vmdisks"}, vmDisks.Rules[0].Resources)
	assert.Equal(t, webhook.VMDisksPath, *vmDisks.ClientConfig.Service.Path)
	assert.Empty(t, vmDisks.MatchConditions, "every VMDisk is judged")
	assert.Equal(t, webhook.ReleasesPath, *vmDiskReleases.ClientConfig.Service.Path)
	assert.Contains(t, vmDiskReleases.MatchConditions[0].Expression, `object.metadata.name.startsWith("vm-disk-")`)
	assert.Contains(t, vmDiskReleases.MatchConditions[0].Expression, `== "VMDisk"`)
	assert.Equal(t, []string{"kubernetesnodeses"}, pools.Rules[0].Resources, "cozystack-api's plural")
	assert.Equal(t, webhook.PoolsPath, *pools.ClientConfig.Service.Path)
	assert.Empty(t, pools.MatchConditions, "every KubernetesNodes is a pool")
	assert.Equal(t, webhook.ReleasesPath, *poolReleases.ClientConfig.Service.Path)
	assert.Contains(t, poolReleases.MatchConditions[0].Expression, poolrelease.Pools.RefName)
	assert.Contains(t, poolReleases.MatchConditions[0].Expression, `"apps.cozystack.io/application.kind"`)
	assert.Equal(t, webhook.ReleasesPath, *catalogReleases.ClientConfig.Service.Path)
	assert.Contains(t, catalogReleases.MatchConditions[0].Expression, `request.namespace == "cozy-images" && request.name == "catalog"`)
	assert.Equal(t, []string{"cozy-images"}, catalogReleases.NamespaceSelector.MatchExpressions[0].Values)
	assert.Equal(t, metav1.LabelSelectorOpIn, catalogReleases.NamespaceSelector.MatchExpressions[0].Operator, "the catalog release's namespace alone")
	assert.Contains(t, pools.NamespaceSelector.MatchExpressions[0].Values, "ops", "the webhook's own namespace is not validated")

	args := deploy.Spec.Template.Spec.Containers[0].Args
	assert.Equal(t, "webhook", args[0])
	assert.True(t, slices.Contains(args, "--catalog-release=cozy-images/catalog"), "%v", args)
	assert.True(t, slices.Contains(args, "--port=9443"), "%v", args)
	assert.True(t, slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--cert-dir=") }))
	assert.Equal(t, "worker-image-webhook-tls", deploy.Spec.Template.Spec.Volumes[0].Secret.SecretName)

	_, deploy = webhooks(t, "ops", map[string]any{"webhook": map[string]any{"port": 10250}})
	assert.Contains(t, deploy.Spec.Template.Spec.Containers[0].Args, "--port=10250", "the container serves on webhook.port")
	assert.Equal(t, int32(10250), deploy.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort)
}

// Reading the catalog back from the goldens, the catalog's webhook judges
// a kubernetes-worker-image release in any namespace the pools' webhooks
// judge, and no more: never kube-system's, nor the webhook's own.
func TestChartReadBackCatalogWebhook(t *testing.T) {
	cfg, deploy := webhooks(t, "ops", map[string]any{"catalogRelease": map[string]any{"name": ""}})
	pools, catalogReleases := cfg.Webhooks[0], cfg.Webhooks[2]
	assert.Equal(t, pools.NamespaceSelector, catalogReleases.NamespaceSelector)
	assert.NotContains(t, catalogReleases.MatchConditions[0].Expression, "request.name", "no release is the catalog by its name")
	assert.Contains(t, deploy.Spec.Template.Spec.Containers[0].Args, "--catalog-release=")
}
