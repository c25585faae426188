package chart_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// rulesOn are the rules of every Role and ClusterRole that name ConfigMaps
// or Secrets, by the role's kind/name.
func rulesOn(t *testing.T, objs []*unstructured.Unstructured) map[string][]rbacv1.PolicyRule {
	t.Helper()
	out := map[string][]rbacv1.PolicyRule{}
	for _, o := range objs {
		if o.GetKind() != "Role" && o.GetKind() != "ClusterRole" {
			continue
		}
		var role rbacv1.ClusterRole
		typed(t, o, &role)
		for _, r := range role.Rules {
			for _, res := range r.Resources {
				if res == "configmaps" || res == "secrets" {
					out[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = append(out[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()], r)
					break
				}
			}
		}
	}
	return out
}

// The catalog releases' valuesFrom objects are granted by name, to each
// reader with the verbs it uses (the webhook gets, the controller gets and
// watches), in the release's namespace; with none
// named, nothing is granted on ConfigMaps or Secrets at all, since a rule
// without resourceNames would grant every one.
func TestChartGrantsValuesFromByName(t *testing.T) {
	objs, err := render(t, ns, nil)
	require.NoError(t, err)
	assert.Empty(t, rulesOn(t, objs), "no valuesFrom object named: no grant on ConfigMaps or Secrets")

	objs, err = render(t, ns, map[string]any{
		"catalogRelease": map[string]any{"namespace": "cozy-catalog", "valuesFrom": map[string]any{"secrets": []any{"catalog-values"}, "configMaps": []any{"catalog-extra", "true"}}},
		"imageCatalog":   map[string]any{"valuesFrom": map[string]any{"secrets": []any{"images-values"}}},
	})
	require.NoError(t, err)
	readWatch := []string{"get", "list", "watch"}
	assert.Equal(t, map[string][]rbacv1.PolicyRule{
		"Role/cozy-catalog/worker-image-webhook": {
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"catalog-extra", "true"}, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"catalog-values"}, Verbs: []string{"get"}},
		},
		"Role/cozy-catalog/worker-image-controller-catalog-values": {
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"catalog-extra", "true"}, Verbs: readWatch},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"catalog-values"}, Verbs: readWatch},
		},
		"Role/cozy-system/worker-image-controller-images-values": {
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"images-values"}, Verbs: readWatch},
		},
		"Role/cozy-system/worker-image-webhook-images": {
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"images-values"}, Verbs: []string{"get"}},
		},
	}, rulesOn(t, objs))
	for _, name := range []string{"worker-image-controller-catalog-values", "worker-image-controller-images-values"} {
		var b rbacv1.RoleBinding
		typed(t, find(objs, "RoleBinding", name), &b)
		assert.Equal(t, name, b.RoleRef.Name)
		assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "worker-image-controller", Namespace: ns}}, b.Subjects)
	}

	// Just clear of it: without a catalog release, its valuesFrom grants
	// nothing; the image catalog's stays.
	objs, err = render(t, ns, map[string]any{
		"catalogRelease": map[string]any{"name": "", "valuesFrom": map[string]any{"secrets": []any{"catalog-values"}}},
		"imageCatalog":   map[string]any{"valuesFrom": map[string]any{"configMaps": []any{"images-values"}}},
	})
	require.NoError(t, err)
	got := rulesOn(t, objs)
	assert.Len(t, got, 2)
	assert.Contains(t, got, "Role/cozy-system/worker-image-controller-images-values")
	assert.Contains(t, got, "Role/cozy-system/worker-image-webhook-images")
}
