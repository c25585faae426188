package chart_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
)

// render renders the chart's templates as Helm does for the functions they
// use (include, toYaml, nindent, default, required, list, and text/
// template's own), with the chart's values.yaml under set, into its
// objects. A failed required is the error.
func render(t *testing.T, namespace string, set map[string]any) ([]*unstructured.Unstructured, error) {
	t.Helper()
	raw, err := os.ReadFile("values.yaml")
	require.NoError(t, err)
	var values map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &values))
	merge(values, set)
	root := template.New("chart")
	root.Funcs(template.FuncMap{
		"include": func(name string, data any) (string, error) {
			var b bytes.Buffer
			err := root.ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
		"toYaml": func(v any) (string, error) {
			b, err := yaml.Marshal(v)
			return strings.TrimSuffix(string(b), "\n"), err
		},
		"nindent": func(n int, s string) string {
			pad := strings.Repeat(" ", n)
			return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
		},
		"default": func(d, v any) any {
			if v == nil || v == "" || v == false {
				return d
			}
			return v
		},
		"required": func(msg string, v any) (any, error) {
			if v == nil || v == "" {
				return nil, fmt.Errorf("%s", msg)
			}
			return v, nil
		},
		"list": func(v ...any) []any { return v },
	})
	files, err := filepath.Glob("templates/*")
	require.NoError(t, err)
	slices.Sort(files)
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		_, err = root.New(filepath.Base(f)).Parse(string(text))
		require.NoError(t, err, f)
	}
	data := map[string]any{
		"Values":  values,
		"Release": map[string]any{"Namespace": namespace, "Name": "worker-image", "Service": "Helm"},
		"Files":   chartFiles{t},
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "_") {
			continue
		}
		var b bytes.Buffer
		if err := root.ExecuteTemplate(&b, name, data); err != nil {
			return nil, err
		}
		for _, doc := range strings.Split(b.String(), "\n---\n") {
			var m map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(doc), &m), "%s renders YAML:\n%s", name, doc)
			if len(m) == 0 {
				continue
			}
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
	return objs, nil
}

// chartFiles are the chart's files as Helm's .Files serves them to a
// template: Get is a file's text, "" when it does not exist.
type chartFiles struct{ t *testing.T }

func (f chartFiles) Get(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		f.t.Logf("the chart has no file %s", name)
		return ""
	}
	return string(b)
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				merge(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
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
		"WorkerImageHostAssistedClonePredicted", "WorkerImageControllerAbsent"}, alerts)
	annotations, _, _ := unstructured.NestedMap(groups[0].(map[string]any)["rules"].([]any)[0].(map[string]any), "annotations")
	assert.Equal(t, "{{ $value }} worker pool(s) refused: {{ $labels.reason }}", annotations["summary"], "Prometheus's own template reaches it unrendered")
}

// The webhook's part of the chart is what `webhook manifests` writes for
// the same namespace and failurePolicy: the webhooks (their rules,
// selectors and match conditions), the read RBAC, the catalog release's
// Role, the container's arguments.
func TestChartIsTheWebhookManifests(t *testing.T) {
	for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		t.Run(string(policy), func(t *testing.T) {
			objs, err := render(t, ns, map[string]any{"webhook": map[string]any{"failurePolicy": string(policy)}})
			require.NoError(t, err)
			want := map[string]runtime.Object{}
			for _, o := range webhook.Manifests(webhook.ManifestOptions{Namespace: ns, FailurePolicy: policy,
				Options: webhook.Options{CatalogRelease: webhook.DefaultCatalogRelease()}}) {
				u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
				require.NoError(t, err)
				obj := &unstructured.Unstructured{Object: u}
				want[obj.GetKind()+"/"+obj.GetName()] = o
			}
			var cfg admissionregistrationv1.ValidatingWebhookConfiguration
			typed(t, find(objs, "ValidatingWebhookConfiguration", "worker-image-webhook"), &cfg)
			wantCfg := want["ValidatingWebhookConfiguration/worker-image-webhook"].(*admissionregistrationv1.ValidatingWebhookConfiguration)
			assert.Equal(t, canonical(t, wantCfg.Webhooks), canonical(t, cfg.Webhooks))
			assert.Equal(t, wantCfg.Annotations, cfg.Annotations)

			var role rbacv1.ClusterRole
			typed(t, find(objs, "ClusterRole", "worker-image-webhook"), &role)
			assert.ElementsMatch(t, want["ClusterRole/worker-image-webhook"].(*rbacv1.ClusterRole).Rules, role.Rules)
			var release rbacv1.Role
			typed(t, find(objs, "Role", "worker-image-webhook"), &release)
			assert.Equal(t, want["Role/worker-image-webhook"].(*rbacv1.Role).Rules, release.Rules)
			assert.Equal(t, want["Role/worker-image-webhook"].(*rbacv1.Role).Namespace, release.Namespace)
			var images rbacv1.Role
			typed(t, find(objs, "Role", "worker-image-webhook-images"), &images)
			assert.Equal(t, want["Role/worker-image-webhook-images"].(*rbacv1.Role).Rules, images.Rules)
			assert.Equal(t, want["Role/worker-image-webhook-images"].(*rbacv1.Role).Namespace, images.Namespace)
		})
	}
}

// canonical is v as JSON, so that a nil and an empty list compare alike.
func canonical(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m any
	require.NoError(t, json.Unmarshal(b, &m))
	out, err := json.MarshalIndent(m, "", " ")
	require.NoError(t, err)
	return string(out)
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
	for _, name := range []string{"worker-image-webhook", "worker-image-controller"} {
		var role rbacv1.ClusterRole
		typed(t, find(objs, "ClusterRole", name), &role)
		reads := map[string]bool{}
		for _, r := range role.Rules {
			assert.NotContains(t, r.Verbs, "*", name)
			assert.NotContains(t, r.Resources, "*", name)
			if slices.Equal(r.Verbs, []string{"get", "list", "watch"}) {
				for _, g := range r.APIGroups {
					for _, res := range r.Resources {
						reads[g+"/"+res] = true
					}
				}
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
	}
}

// Without cert-manager the chart asks for the CA of the Secret it is given,
// by the value's name, rather than render a webhook no API server trusts.
func TestChartWithoutCertManager(t *testing.T) {
	_, err := render(t, ns, map[string]any{"webhook": map[string]any{"tls": map[string]any{"certManager": false, "secretName": "mine"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "webhook.tls.caBundle")

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
