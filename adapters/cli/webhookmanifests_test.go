package cli_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
	"github.com/cozystack/kubernetes-worker-image/internal/chartrender"
)

// manifests runs `webhook manifests` with args and decodes its documents,
// after the header.
func manifests(t *testing.T, args ...string) (header string, objs []*unstructured.Unstructured) {
	t.Helper()
	r := exe(t, "", append([]string{"webhook", "manifests"}, args...)...)
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	docs := strings.Split(r.stdout, "\n---\n")
	for _, doc := range docs[1:] {
		j, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, utiljson.Unmarshal(j, &m))
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	return docs[0], objs
}

func field(t *testing.T, objs []*unstructured.Unstructured, kind string, path ...string) any {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind {
			v, _, err := unstructured.NestedFieldNoCopy(o.Object, path...)
			require.NoError(t, err)
			return v
		}
	}
	t.Fatalf("no %s", kind)
	return nil
}

// By default the command prints the chart's webhook as Helm would install
// it with the chart's own values (the controller and monitoring left out),
// after its namespace; each object is labelled as written by worker-image,
// not by Helm.
func TestWebhookManifestsAreTheChart(t *testing.T) {
	header, objs := manifests(t)
	assert.True(t, strings.HasPrefix(header, "# The worker-image admission webhook, rendered from the worker-image Helm\n"), header)
	assert.Contains(t, header, "# failurePolicy: Fail.\n# While the webhook is down, no pool and no catalog release can be")
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetKind())
		assert.NotContains(t, o.Object, "status", "an operator applies no status")
		assert.Equal(t, "worker-image", o.GetLabels()["app.kubernetes.io/managed-by"], "%s/%s", o.GetKind(), o.GetName())
	}
	assert.Equal(t, []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Role", "RoleBinding",
		"Issuer", "Certificate", "Service", "Deployment", "PodDisruptionBudget", "ValidatingWebhookConfiguration"}, kinds)
	assert.Equal(t, "cozy-worker-image", objs[0].GetName())

	want, err := chartrender.Render(chart.Files(), chartrender.Release{Name: "worker-image", Namespace: "cozy-worker-image", Service: "worker-image"},
		map[string]any{"controller": map[string]any{"enabled": false},
			"monitoring": map[string]any{"serviceMonitor": false, "prometheusRule": false, "grafanaDashboard": false}})
	require.NoError(t, err)
	require.Len(t, objs[1:], len(want))
	for i, o := range want {
		assert.Equal(t, o.Object, objs[1+i].Object, "%s/%s is the chart's, its defaults unchanged", o.GetKind(), o.GetName())
	}
}

// Each flag is the chart value it names.
func TestWebhookManifestsFlags(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600))
	header, objs := manifests(t, "--namespace", "ops", "--image", "registry.example:5000/team/worker-image:v1.2", "--replicas", "3",
		"--failure-policy", "Ignore", "--timeout", "7", "--ca-bundle", ca, "--catalog-release", "cozy-images/catalog",
		"--pool-resource", "kubernetesnodes", "--port", "10250")
	assert.Contains(t, header, "# failurePolicy: Ignore.\n# While the webhook is down, pools and the catalog are admitted")
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetKind())
		if o.GetNamespace() != "" && o.GetKind() != "Role" && o.GetKind() != "RoleBinding" {
			assert.Equal(t, "ops", o.GetNamespace(), "%s/%s", o.GetKind(), o.GetName())
		}
	}
	assert.NotContains(t, kinds, "Certificate", "a CA given needs no cert-manager")
	assert.NotContains(t, kinds, "Issuer")
	assert.Equal(t, "ops", objs[0].GetName())

	container := field(t, objs, "Deployment", "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	assert.Equal(t, "registry.example:5000/team/worker-image:v1.2", container["image"])
	args := container["args"].([]any)
	assert.Contains(t, args, "--catalog-release=cozy-images/catalog")
	assert.Contains(t, args, "--port=10250")
	assert.EqualValues(t, 3, field(t, objs, "Deployment", "spec", "replicas"))
	hooks := field(t, objs, "ValidatingWebhookConfiguration", "webhooks").([]any)
	require.Len(t, hooks, 5)
	for _, h := range hooks {
		h := h.(map[string]any)
		assert.Equal(t, "Ignore", h["failurePolicy"])
		assert.EqualValues(t, 7, h["timeoutSeconds"])
		assert.Equal(t, base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n")), h["clientConfig"].(map[string]any)["caBundle"])
	}
	assert.Equal(t, []any{"kubernetesnodes"}, hooks[0].(map[string]any)["rules"].([]any)[0].(map[string]any)["resources"])
	var roleNamespaces []string
	for _, o := range objs {
		if o.GetKind() == "Role" {
			roleNamespaces = append(roleNamespaces, o.GetNamespace()+"/"+o.GetName())
		}
	}
	assert.Equal(t, []string{"cozy-images/worker-image-webhook", "cozy-system/worker-image-webhook-images"}, roleNamespaces)

	for image, want := range map[string]string{
		"worker-image": "worker-image:latest",
		"registry.example:5000/worker-image@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": "registry.example:5000/worker-image@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"ghcr.io/x/wi:v1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef":                    "ghcr.io/x/wi:v1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	} {
		_, objs := manifests(t, "--image", image)
		container := field(t, objs, "Deployment", "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
		assert.Equal(t, want, container["image"], "an image without a tag is :latest, as the kubelet pulls it; a digest is kept")
	}

	_, objs = manifests(t, "--catalog-release", "")
	args = field(t, objs, "Deployment", "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["args"].([]any)
	assert.Contains(t, args, "--catalog-release=", "read back from the goldens")
	assert.False(t, slices.ContainsFunc(objs, func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "Role" && o.GetName() == "worker-image-webhook"
	}), "no catalog release to read")
}

// A flag the chart would write into YAML or CEL as it is must be the name
// or reference it stands for: anything else is refused, saying which flag
// and what it takes, before anything is written.
func TestWebhookManifestsRefusesWhatItCannotWrite(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.pem")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"a namespace that is YAML":       {[]string{"--namespace", "ops\nkind: Secret"}, `--namespace "ops\nkind: Secret" is not a namespace name`},
		"a namespace in capitals":        {[]string{"--namespace", "Ops"}, `--namespace "Ops" is not a namespace name`},
		"an image with a space":          {[]string{"--image", "worker-image:v1 # x"}, `--image "worker-image:v1 # x" is not an image reference`},
		"an image that is YAML":          {[]string{"--image", "{a: b}"}, `is not an image reference: give [REGISTRY/]PATH[:TAG][@DIGEST]`},
		"an image with an empty tag":     {[]string{"--image", "worker-image:"}, `is not an image reference`},
		"a pool resource that is CEL":    {[]string{"--pool-resource", `x"]`}, `--pool-resource "x\"]" is not a resource name`},
		"a catalog release name in CEL":  {[]string{"--catalog-release", `cozy-system/a" || true || "`}, `is not a HelmRelease's NAMESPACE/NAME`},
		"a catalog release without /":    {[]string{"--catalog-release", "catalog"}, `is not NAMESPACE/NAME`},
		"no replica":                     {[]string{"--replicas", "0"}, "--replicas 0: at least one replica must serve"},
		"a timeout the API server bars":  {[]string{"--timeout", "31"}, "--timeout 31 is not between 1 and 30"},
		"no port":                        {[]string{"--port", "0"}, "--port 0 is not a port"},
		"a policy the API server bars":   {[]string{"--failure-policy", "Never"}, `--failure-policy "Never" is neither Fail nor Ignore`},
		"an empty CA":                    {[]string{"--ca-bundle", empty}, "is empty: give the CA certificate (PEM)"},
		"a flag of the server":           {[]string{"--cert-dir", "/tmp"}, "manifests takes no --catalog, --kubeconfig, --context or --cert-dir"},
		"neighbour: the longest tag":     {[]string{"--image", "wi:" + strings.Repeat("t", 129)}, "is not an image reference"},
		"neighbour: a capital in a path": {[]string{"--image", "ghcr.io/Team/wi"}, "is not an image reference"},
	} {
		t.Run(name, func(t *testing.T) {
			r := exe(t, "", append([]string{"webhook", "manifests"}, tc.args...)...)
			assert.Equal(t, 2, r.code, "stderr: %s", r.stderr)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
	for _, ok := range [][]string{
		{"--namespace", strings.Repeat("n", 63)},
		{"--image", "wi:" + strings.Repeat("t", 128)},
		{"--image", "Registry.Example/wi"},
		{"--timeout", "30"}, {"--timeout", "1"}, {"--port", "65535"}, {"--replicas", "1"},
	} {
		manifests(t, ok...)
	}
}
