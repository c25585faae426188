package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
)

// valuesFile writes a values file for --values.
func valuesFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

// role is the rules of the Role namespace/name.
func role(t *testing.T, objs []*unstructured.Unstructured, namespace, name string) []any {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "Role" && o.GetNamespace() == namespace && o.GetName() == name {
			rules, _, err := unstructured.NestedSlice(o.Object, "rules")
			require.NoError(t, err)
			return rules
		}
	}
	t.Fatalf("no Role %s/%s", namespace, name)
	return nil
}

// A value no flag sets reaches the output from a --values file: the
// catalog release's valuesFrom objects become get by name in its Role.
func TestWebhookManifestsValuesFile(t *testing.T) {
	f := valuesFile(t, "values.yaml", "catalogRelease:\n  valuesFrom:\n    secrets: [catalog-values]\nimageCatalog:\n  valuesFrom:\n    configMaps: [images]\n")
	_, objs := manifests(t, "--values", f)
	rules := role(t, objs, "cozy-system", "worker-image-webhook")
	require.Len(t, rules, 2, "the release, and its Secret")
	assert.Equal(t, map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"}, "resourceNames": []any{"catalog-values"}, "verbs": []any{"get"}}, rules[1])
	images := role(t, objs, "cozy-system", "worker-image-webhook-images")
	require.Len(t, images, 2)
	assert.Equal(t, []any{"images"}, images[1].(map[string]any)["resourceNames"])

	_, plain := manifests(t)
	assert.Len(t, role(t, plain, "cozy-system", "worker-image-webhook"), 1, "neighbour: without the file no Secret is granted")

	_, objs = manifests(t, "--values", valuesFile(t, "none.yaml", "# nothing\n"))
	assert.Equal(t, len(plain), len(objs), "neighbour: an empty file changes nothing")
	for i := range plain {
		assert.Equal(t, plain[i].Object, objs[i].Object)
	}
}

// The later file wins over the earlier, and a flag given wins over every
// file; a flag left to its default does not undo a file.
func TestWebhookManifestsValuesPrecedence(t *testing.T) {
	first := valuesFile(t, "first.yaml", "webhook:\n  replicas: 3\n  timeoutSeconds: 9\n")
	second := valuesFile(t, "second.yaml", "webhook:\n  replicas: 4\n")
	hook := func(objs []*unstructured.Unstructured) map[string]any {
		return field(t, objs, "ValidatingWebhookConfiguration", "webhooks").([]any)[0].(map[string]any)
	}

	_, objs := manifests(t, "--values", first, "--values", second)
	assert.EqualValues(t, 4, field(t, objs, "Deployment", "spec", "replicas"), "the later file wins")
	assert.EqualValues(t, 9, hook(objs)["timeoutSeconds"], "what the later file leaves out, the earlier keeps")

	_, objs = manifests(t, "--values", second, "--values", first)
	assert.EqualValues(t, 3, field(t, objs, "Deployment", "spec", "replicas"), "neighbour: the other order, the other winner")

	_, objs = manifests(t, "--values", first, "--values", second, "--replicas", "5")
	assert.EqualValues(t, 5, field(t, objs, "Deployment", "spec", "replicas"), "the flag given wins over the files")
	assert.EqualValues(t, 9, hook(objs)["timeoutSeconds"])

	_, objs = manifests(t, "--values", first, "--replicas", "2")
	assert.EqualValues(t, 2, field(t, objs, "Deployment", "spec", "replicas"), "a flag given as the chart's default still wins")

	_, objs = manifests(t, "--values", valuesFile(t, "policy.yaml", "webhook: {failurePolicy: Ignore}\ncatalogRelease: {name: \"\"}\n"))
	assert.Equal(t, "Ignore", hook(objs)["failurePolicy"], "neighbour: no flag given, the file's value stays")
	args := field(t, objs, "Deployment", "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["args"].([]any)
	assert.Contains(t, args, "--catalog-release=", "the file's empty release name stays: no flag given")

	h, objs := manifests(t, "--values", valuesFile(t, "policy.yaml", "webhook: {failurePolicy: Ignore}\n"), "--failure-policy", "Fail")
	assert.Equal(t, "Fail", hook(objs)["failurePolicy"])
	assert.Contains(t, h, "# failurePolicy: Fail.")
	h, _ = manifests(t, "--values", valuesFile(t, "policy.yaml", "webhook: {failurePolicy: Ignore}\n"))
	assert.Contains(t, h, "# failurePolicy: Ignore.", "the header says the policy the file set")

	_, objs = manifests(t, "--values", valuesFile(t, "ctl.yaml", "controller: {enabled: true}\nmonitoring: {prometheusRule: true}\n"))
	for _, o := range objs {
		assert.NotContains(t, o.GetName(), "controller", "the webhook alone, whatever a file says")
		assert.NotEqual(t, "PrometheusRule", o.GetKind())
	}
}

// A file is refused, exit 2 naming it and the way out, when it names a
// value the chart does not define (with the nearest it does), gives a map
// something else, sets a value the chart writes as it is to something it
// cannot be, or is over the bound of one input; each has a neighbour that
// passes.
func TestWebhookManifestsValuesRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want string
	}{
		"an unknown top-level key":      {"webhok:\n  replicas: 3\n", `the chart has no value "webhok" (did you mean "webhook"?); its values are catalogRelease, controller, image, imageCatalog, monitoring, webhook`},
		"an unknown key deeper":         {"webhook:\n  replicaz: 3\n", `the chart has no value webhook.replicaz (did you mean webhook.replicas?); the values of webhook are enabled, failurePolicy, `},
		"an unknown key deeper still":   {"monitoring: {alerts: {poolRefused: 5m}}\n", `the chart has no value monitoring.alerts.poolRefused (did you mean monitoring.alerts.poolRefusedFor?)`},
		"a map that is a string":        {"webhook: three\n", "webhook is the string \"three\", and the chart's webhook is a map of values"},
		"a map deeper that is a number": {"catalogRelease:\n  valuesFrom: 3\n", "catalogRelease.valuesFrom is"},
		"no replica":                    {"webhook: {replicas: 0}\n", "webhook.replicas is the number 0: at least one replica must serve"},
		"replicas as text":              {"webhook: {replicas: three}\n", "webhook.replicas is the string \"three\""},
		"a timeout the API server bars": {"webhook: {timeoutSeconds: 31}\n", "webhook.timeoutSeconds is the number 31: give seconds between 1 and 30"},
		"a policy the API server bars":  {"webhook: {failurePolicy: Never}\n", `webhook.failurePolicy "Never" is neither Fail nor Ignore`},
		"a pool resource that is CEL":   {"webhook: {poolResource: 'x\"]'}\n", `webhook.poolResource "x\"]" is not a resource name`},
		"a release name in CEL":         {"catalogRelease: {name: 'a\" || true || \"'}\n", `catalogRelease.name "a\" || true || \"" is not a HelmRelease's name`},
		"a Secret name that is YAML":    {"catalogRelease: {valuesFrom: {secrets: [\"a\\nkind: x\"]}}\n", `catalogRelease.valuesFrom.secrets[0] "a\nkind: x" is not a name of the kind`},
		"a name list that is a string":  {"imageCatalog: {valuesFrom: {configMaps: images}}\n", "imageCatalog.valuesFrom.configMaps is the string \"images\": give a list of names"},
		"an image tag with a space":     {"image: {tag: 'v1 # x'}\n", `image.repository "ghcr.io/cozystack/kubernetes-worker-image" with image.tag "v1 # x" is not an image reference`},
		"a pull policy":                 {"image: {pullPolicy: Sometimes}\n", `image.pullPolicy "Sometimes" is not Always, IfNotPresent or Never`},
		"the webhook disabled":          {"webhook: {enabled: false}\n", "webhook.enabled is"},
		"no CA without cert-manager":    {"webhook: {tls: {certManager: false}}\n", "the chart needs a value: webhook.tls.caBundle"},
		"a map of the chart, null":      {"catalogRelease: null\n", "catalogRelease is null, and the chart's templates read its fields"},
		"a map deeper, null":            {"webhook: {tls: null}\n", "the chart cannot render with these values"},
	} {
		t.Run(name, func(t *testing.T) {
			f := valuesFile(t, "bad.yaml", tc.text)
			r := exe(t, "", "webhook", "manifests", "--values", valuesFile(t, "good.yaml", "webhook: {replicas: 3}\n"), "--values", f)
			assert.Equal(t, 2, r.code, "stderr: %s", r.stderr)
			assert.Empty(t, r.stdout)
			if !strings.HasPrefix(tc.want, "the chart ") {
				assert.Contains(t, r.stderr, f+": ")
			}
			assert.Contains(t, r.stderr, tc.want)
		})
	}
	for _, ok := range []string{
		"webhook:\n  replicas: 1\n  timeoutSeconds: 30\n  port: 65535\n",
		"webhook: {timeoutSeconds: 1, failurePolicy: Ignore, poolResource: kubernetesnodes}\n",
		"catalogRelease: {name: catalog, namespace: cozy-images, valuesFrom: {configMaps: [a.b-c], secrets: null}}\n",
		"webhook: {resources: {requests: {cpu: 1, ephemeral-storage: 1Gi}}}\n",
		"controller: {resources: {limits: {memory: 1Gi, cpu: 2}, claims: [{name: x}]}}\n",
		"monitoring: {alerts: {poolRefusedFor: 5m}}\n",
		"webhook: {resources: null}\nimageCatalog: {valuesFrom: null}\n",
		"webhook: {tls: {certManager: false, secretName: own-tls, caBundle: Q0E=}}\n",
		"image: {repository: registry.example:5000/wi, tag: v1, pullPolicy: Always}\n",
	} {
		manifests(t, "--values", valuesFile(t, "ok.yaml", ok))
	}
}

// A values file is an input like any other: over --max-input-bytes it is
// refused before it is read whole; at the bound it is read.
func TestWebhookManifestsValuesBounded(t *testing.T) {
	text := "webhook:\n  replicas: 3\n"
	text += "#" + strings.Repeat("x", 1024-len(text)-2) + "\n"
	require.Len(t, text, 1024)
	at := valuesFile(t, "at.yaml", text)
	over := valuesFile(t, "over.yaml", text+"\n")
	_, objs := manifests(t, "--max-input-bytes=1Ki", "--values", at)
	assert.EqualValues(t, 3, field(t, objs, "Deployment", "spec", "replicas"))
	r := exe(t, "", "webhook", "manifests", "--max-input-bytes=1Ki", "--values", over)
	assert.Equal(t, 2, r.code, "stderr: %s", r.stderr)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, over+" is larger than 1Ki (1024 bytes), the limit of one input")

	r = exe(t, "webhook: {replicas: 6}\n", "webhook", "manifests", "--values", "-")
	assert.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "replicas: 6", "standard input")
}

// Whatever a values file holds, webhook manifests renders it (exit 0) or
// refuses it as unusable input (exit 2), never fails otherwise nor panics.
func FuzzWebhookManifestsValues(f *testing.F) {
	for _, s := range []string{"", "webhook: {replicas: 3}\n", "catalogRelease: null\n", "webhook: {tls: null}\n", "image: {tag: 1}\n",
		"webhook: {tls: {certManager: false, caBundle: 3}}\n", "imageCatalog: {valuesFrom: {secrets: [a, b]}}\n", "controller: null\n",
		"webhook: {failurePolicy: Ignore, timeoutSeconds: 30.0}\n", "catalogRelease: {namespace: null, name: x}\n", "- a\n", "monitoring: 3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var stdout, stderr bytes.Buffer
		code := cli.Run([]string{"webhook", "manifests", "--values", "-"}, strings.NewReader(text), &stdout, &stderr)
		if code != 0 && code != 2 {
			t.Fatalf("exit %d on %q: %s", code, text, stderr.String())
		}
	})
}
