package chart_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// helmEnv names the helm binary (.ci/helm-binary builds one); unset, the
// one that script builds is used if it is there, else the test is skipped.
const helmEnv = "WORKER_IMAGE_HELM"

func helmBinary(t *testing.T) string {
	t.Helper()
	if h := os.Getenv(helmEnv); h != "" {
		return h
	}
	h, err := filepath.Abs(filepath.Join("..", "..", ".cache", "helm", "bin", "helm"))
	require.NoError(t, err)
	if _, err := os.Stat(h); err != nil {
		t.Skipf("no helm: set %s, or run .ci/helm-binary", helmEnv)
	}
	return h
}

// Helm itself lints the chart, and renders it to the very objects the
// renderer does (the one the tests and `webhook manifests` use), for the
// default values, the catalog read back on another port, the webhook
// alone, and the other failurePolicy without cert-manager: what the tests
// assert of the chart and what the command prints hold of what Helm
// installs.
func TestHelmRendersWhatTheTestsRender(t *testing.T) {
	helm := helmBinary(t)
	out, err := exec.Command(helm, "lint", "--strict", ".").CombinedOutput()
	require.NoError(t, err, "helm lint: %s", out)

	for name, tc := range map[string]struct {
		args []string
		set  map[string]any
	}{
		"defaults": {},
		"read back, on another port": {
			args: []string{"--set", "catalogRelease.name=", "--set", "webhook.port=10250"},
			set:  map[string]any{"catalogRelease": map[string]any{"name": ""}, "webhook": map[string]any{"port": 10250}},
		},
		"the webhook alone, as webhook manifests renders it": {
			args: []string{"--set", "controller.enabled=false", "--set", "monitoring.serviceMonitor=false",
				"--set", "monitoring.prometheusRule=false", "--set", "monitoring.grafanaDashboard=false"},
			set: map[string]any{"controller": map[string]any{"enabled": false},
				"monitoring": map[string]any{"serviceMonitor": false, "prometheusRule": false, "grafanaDashboard": false}},
		},
		"Ignore, a provided Secret": {
			args: []string{"--set", "webhook.failurePolicy=Ignore", "--set", "webhook.tls.certManager=false",
				"--set", "webhook.tls.secretName=tls", "--set", "webhook.tls.caBundle=Q0E="},
			set: map[string]any{"webhook": map[string]any{"failurePolicy": "Ignore", "tls": map[string]any{"certManager": false, "secretName": "tls", "caBundle": "Q0E="}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(helm, append([]string{"template", "worker-image", ".", "--namespace", ns}, tc.args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			text, err := cmd.Output()
			require.NoError(t, err, "helm template: %s", stderr.String())
			byHelm := map[string]map[string]any{}
			for _, doc := range strings.Split(string(text), "\n---\n") {
				j, err := yaml.YAMLToJSON([]byte(doc))
				require.NoError(t, err)
				var m map[string]any
				require.NoError(t, utiljson.Unmarshal(j, &m), "whole numbers as int64, as the API machinery and the renderer decode them")
				if len(m) == 0 {
					continue
				}
				u := unstructured.Unstructured{Object: m}
				byHelm[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = m
			}
			objs, err := render(t, ns, tc.set)
			require.NoError(t, err)
			require.Len(t, objs, len(byHelm), "as many objects as Helm renders")
			for _, o := range objs {
				key := o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
				want, ok := byHelm[key]
				if assert.True(t, ok, "Helm renders no %s", key) {
					assert.Equal(t, want, o.Object, key)
				}
			}
		})
	}
}
