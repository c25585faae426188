package webhook_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// documents decodes YAML documents into maps.
func documents(t *testing.T, text []byte) []map[string]any {
	t.Helper()
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(text), 4096)
	var out []map[string]any
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			break
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

func TestManifestsYAML(t *testing.T) {
	text, err := webhook.ManifestsYAML(webhook.ManifestOptions{})
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(text, []byte("# The worker-image admission webhook")), "it starts with what it is")
	assert.Contains(t, string(text), "# failurePolicy: Fail.\n# While the webhook is down, no pool and no catalog release can be")
	var kinds []string
	for _, d := range documents(t, text) {
		kinds = append(kinds, d["kind"].(string))
		assert.NotContains(t, d, "status", "an operator applies no status")
	}
	assert.Equal(t, []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Role", "RoleBinding",
		"Issuer", "Certificate", "Service", "Deployment", "PodDisruptionBudget", "ValidatingWebhookConfiguration"}, kinds)

	ignore, err := webhook.ManifestsYAML(webhook.ManifestOptions{FailurePolicy: admissionregistrationv1.Ignore, CABundle: []byte("CA")})
	require.NoError(t, err)
	assert.Contains(t, string(ignore), "# failurePolicy: Ignore.\n# While the webhook is down, pools and the catalog are admitted")
	assert.NotContains(t, string(ignore), "cert-manager", "a CA bundle given needs no cert-manager")
}

// The RBAC reads, and only reads, exactly the kinds a pool's plan and a
// catalog render need, and the catalog release by name.
func TestManifestsRBAC(t *testing.T) {
	var cr *rbacv1.ClusterRole
	var role, images *rbacv1.Role
	for _, o := range webhook.Manifests(webhook.ManifestOptions{}) {
		switch o := o.(type) {
		case *rbacv1.ClusterRole:
			cr = o
		case *rbacv1.Role:
			if o.Name == "worker-image-webhook-images" {
				images = o
			} else {
				role = o
			}
		}
	}
	require.NotNil(t, cr)
	require.NotNil(t, role)
	require.NotNil(t, images)
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
		assert.Equal(t, []string{"get", "list", "watch"}, rule.Verbs, "read only")
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

	for _, o := range webhook.Manifests(webhook.ManifestOptions{ReadBack: true}) {
		r, isRole := o.(*rbacv1.Role)
		assert.False(t, isRole && r.Name == "worker-image-webhook", "reading the catalog back needs no release")
	}
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

func TestManifestsWebhooks(t *testing.T) {
	o := webhook.ManifestOptions{Namespace: "ops", TimeoutSeconds: 3, Options: webhook.Options{CatalogRelease: types.NamespacedName{Namespace: "cozy-images", Name: "catalog"}}}
	var cfg *admissionregistrationv1.ValidatingWebhookConfiguration
	var deploy *appsv1.Deployment
	for _, obj := range webhook.Manifests(o) {
		switch obj := obj.(type) {
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			cfg = obj
		case *appsv1.Deployment:
			deploy = obj
		}
	}
	require.NotNil(t, cfg)
	require.Len(t, cfg.Webhooks, 5)
	assert.Equal(t, "ops/worker-image-webhook", cfg.Annotations["cert-manager.io/inject-ca-from"])
	for _, h := range cfg.Webhooks {
		assert.Equal(t, admissionregistrationv1.SideEffectClassNone, *h.SideEffects, h.Name)
		assert.Equal(t, int32(3), *h.TimeoutSeconds, h.Name)
		assert.Equal(t, admissionregistrationv1.Fail, *h.FailurePolicy, h.Name)
		assert.Equal(t, []string{"v1"}, h.AdmissionReviewVersions, h.Name)
		assert.Equal(t, "ops", h.ClientConfig.Service.Namespace, h.Name)
		require.NotNil(t, h.NamespaceSelector, h.Name)
		assert.Contains(t, h.NamespaceSelector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: webhook.DisableLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"disabled"},
		}, "%s: a namespace labelled disabled is opted out, an administrator's act", h.Name)
		assert.Nil(t, h.ObjectSelector, "%s: no object opts itself out: a pool's author sets its labels", h.Name)
		assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, h.Rules[0].Operations, h.Name)
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
	assert.Contains(t, poolReleases.MatchConditions[0].Expression, webhook.PoolChart.Ref.Name)
	assert.Contains(t, poolReleases.MatchConditions[0].Expression, `"apps.cozystack.io/application.kind"`)
	assert.Contains(t, catalogReleases.MatchConditions[0].Expression, `request.namespace == "cozy-images" && request.name == "catalog"`)
	assert.Equal(t, []string{"cozy-images"}, catalogReleases.NamespaceSelector.MatchExpressions[0].Values)
	assert.Contains(t, pools.NamespaceSelector.MatchExpressions[0].Values, "ops", "the webhook's own namespace is not validated")

	args := deploy.Spec.Template.Spec.Containers[0].Args
	assert.Equal(t, "webhook", args[0])
	assert.True(t, slices.Contains(args, "--catalog-release=cozy-images/catalog"), "%v", args)
	assert.True(t, slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--cert-dir=") }))
	assert.Equal(t, "worker-image-webhook-tls", deploy.Spec.Template.Spec.Volumes[0].Secret.SecretName)
}
