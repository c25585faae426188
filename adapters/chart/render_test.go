package chart_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/internal/chartrender"
)

// render renders the chart as Helm installs it in namespace, with set
// over its values.yaml.
func render(t *testing.T, namespace string, set map[string]any) ([]*unstructured.Unstructured, error) {
	t.Helper()
	return chartrender.Render(chart.Files(), chartrender.Release{Name: "worker-image", Namespace: namespace, Service: "Helm"}, set)
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// typed converts a rendered object.
func typed(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	require.NotNil(t, o)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into))
}

const ns = "cozy-worker-image"

func TestChartRenders(t *testing.T) {
	objs, err := render(t, ns, nil)
	require.NoError(t, err)
	var got []string
	for _, o := range objs {
		got = append(got, o.GetKind()+"/"+o.GetName())
		if o.GetKind() != "ClusterRole" && o.GetKind() != "ClusterRoleBinding" && o.GetKind() != "ValidatingWebhookConfiguration" &&
			o.GetName() != "worker-image-webhook" || o.GetKind() == "Deployment" {
			if o.GetKind() != "Role" && o.GetKind() != "RoleBinding" {
				assert.Equal(t, ns, o.GetNamespace(), "%s/%s is in the release's namespace", o.GetKind(), o.GetName())
			}
		}
	}
	for _, want := range []string{
		"Deployment/worker-image-webhook", "PodDisruptionBudget/worker-image-webhook", "ValidatingWebhookConfiguration/worker-image-webhook",
		"Certificate/worker-image-webhook", "Issuer/worker-image-webhook", "Service/worker-image-webhook",
		"Deployment/worker-image-controller", "Service/worker-image-controller", "Role/worker-image-controller",
		"ClusterRole/worker-image-controller", "ClusterRole/worker-image-webhook", "ServiceMonitor/worker-image", "PrometheusRule/worker-image",
	} {
		assert.Contains(t, got, want)
	}
	webhookReplicas, _, _ := unstructured.NestedFieldNoCopy(find(objs, "Deployment", "worker-image-webhook").Object, "spec", "replicas")
	assert.EqualValues(t, 2, webhookReplicas, "two webhook replicas")
	ctrlReplicas, _, _ := unstructured.NestedFieldNoCopy(find(objs, "Deployment", "worker-image-controller").Object, "spec", "replicas")
	assert.EqualValues(t, 1, ctrlReplicas, "one controller replica")
	args, _, _ := unstructured.NestedSlice(find(objs, "Deployment", "worker-image-controller").Object, "spec", "template", "spec", "containers")
	assert.Contains(t, fmt.Sprint(args), "--leader-elect=true")
	assert.Contains(t, fmt.Sprint(args), "--leader-election-namespace="+ns)
	webhook, _, _ := unstructured.NestedSlice(find(objs, "Deployment", "worker-image-webhook").Object, "spec", "template", "spec", "containers")
	assert.Contains(t, fmt.Sprint(webhook), "map[name:GOGC value:50]", "the webhook collects at GOGC 50")
	assert.Contains(t, fmt.Sprint(args), "map[name:GOGC value:40]", "the controller collects at GOGC 40")
	objs100, err := render(t, ns, map[string]any{"webhook": map[string]any{"gogc": ""}})
	require.NoError(t, err)
	webhook, _, _ = unstructured.NestedSlice(find(objs100, "Deployment", "worker-image-webhook").Object, "spec", "template", "spec", "containers")
	assert.NotContains(t, fmt.Sprint(webhook), "GOGC", "an empty gogc: Go's default")
	assert.Contains(t, fmt.Sprint(webhook), "GOMEMLIMIT")
	objs100, err = render(t, ns, map[string]any{"controller": map[string]any{"gogc": ""}})
	require.NoError(t, err)
	args, _, _ = unstructured.NestedSlice(find(objs100, "Deployment", "worker-image-controller").Object, "spec", "template", "spec", "containers")
	assert.NotContains(t, fmt.Sprint(args), "GOGC", "an empty gogc: Go's default")
	assert.Contains(t, fmt.Sprint(args), "GOMEMLIMIT")
	min, _, _ := unstructured.NestedFieldNoCopy(find(objs, "PodDisruptionBudget", "worker-image-webhook").Object, "spec", "minAvailable")
	assert.EqualValues(t, 1, min)

	rule := find(objs, "PrometheusRule", "worker-image")
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	require.Len(t, groups, 1)
	var alerts []string
	for _, r := range groups[0].(map[string]any)["rules"].([]any) {
		alerts = append(alerts, r.(map[string]any)["alert"].(string))
		assert.NotEmpty(t, r.(map[string]any)["expr"])
	}
	assert.Equal(t, []string{"WorkerImagePoolRefused", "WorkerImageVMDiskRefused", "WorkerImageGoldenFailed", "WorkerImageGoldenStalled",
		"WorkerImageHostAssistedClonePredicted", "WorkerImageControllerAbsent", "WorkerImageEventsDropped"}, alerts)
	annotations, _, _ := unstructured.NestedMap(groups[0].(map[string]any)["rules"].([]any)[0].(map[string]any), "annotations")
	assert.Equal(t, "{{ $value }} worker pool(s) refused: {{ $labels.reason }}", annotations["summary"], "Prometheus's own template reaches it unrendered")
}

// Each RBAC grants reads of exactly the kinds a plan and a catalog render
// read, and the controller's nothing it does not use.
func TestChartRBACIsLeastPrivilege(t *testing.T) {
	objs, err := render(t, ns, nil)
	require.NoError(t, err)
	want := map[string]bool{}
	for _, k := range kinds.AdmissionReads().Each() {
		i := kinds.Of(k)
		want[i.GVK.Group+"/"+i.Resource] = true
	}
	// PersistentVolumes are got by name, never listed nor watched.
	delete(want, "/persistentvolumes")
	for _, name := range []string{"worker-image-webhook", "worker-image-controller"} {
		var role rbacv1.ClusterRole
		typed(t, find(objs, "ClusterRole", name), &role)
		reads := map[string]bool{}
		gotByName := false
		for _, r := range role.Rules {
			assert.NotContains(t, r.Verbs, "*", name)
			assert.NotContains(t, r.Resources, "*", name)
			if slices.Equal(r.Verbs, []string{"get", "list", "watch"}) {
				for _, g := range r.APIGroups {
					for _, res := range r.Resources {
						reads[g+"/"+res] = true
					}
				}
			} else if slices.Equal(r.Verbs, []string{"get"}) && len(r.ResourceNames) == 0 {
				assert.Equal(t, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"persistentvolumes"}, Verbs: []string{"get"}}, r,
					"%s: the one kind got by name in every namespace", name)
				gotByName = true
			} else {
				assert.Equal(t, "worker-image-controller", name, "the webhook only reads")
			}
		}
		extra := map[string]bool{}
		if name == "worker-image-controller" {
			extra = map[string]bool{"apps.cozystack.io/kubernetesnodes": true, "apps.cozystack.io/vmdisks": true, "helm.toolkit.fluxcd.io/helmreleases": true}
		}
		all := maps.Clone(want)
		maps.Copy(all, extra)
		assert.Equal(t, all, reads, name)
		assert.True(t, gotByName, "%s gets PersistentVolumes", name)
	}
}

// Without cert-manager the chart asks for the CA of the Secret it is given,
// by the value's name, rather than render a webhook no API server trusts.
func TestChartWithoutCertManager(t *testing.T) {
	_, err := render(t, ns, map[string]any{"webhook": map[string]any{"tls": map[string]any{"certManager": false, "secretName": "mine"}}})
	var required *chartrender.RequiredError
	require.ErrorAs(t, err, &required)
	assert.True(t, strings.HasPrefix(required.Message, "webhook.tls.caBundle:"), "it names the value: %s", required.Message)

	objs, err := render(t, ns, map[string]any{"webhook": map[string]any{"tls": map[string]any{"certManager": false, "secretName": "mine", "caBundle": "Q0E="}}})
	require.NoError(t, err)
	assert.Nil(t, find(objs, "Certificate", "worker-image-webhook"))
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	typed(t, find(objs, "ValidatingWebhookConfiguration", "worker-image-webhook"), &cfg)
	for _, h := range cfg.Webhooks {
		assert.Equal(t, "CA", string(h.ClientConfig.CABundle))
	}
	assert.Empty(t, cfg.Annotations)
	vols, _, _ := unstructured.NestedSlice(find(objs, "Deployment", "worker-image-webhook").Object, "spec", "template", "spec", "volumes")
	assert.Contains(t, fmt.Sprint(vols), "secretName:mine")
}
