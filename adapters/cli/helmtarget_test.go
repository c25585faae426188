package cli_test

import (
	"strings"
	"testing"
)

// TestHelmVerifyChecksHelmsCluster: helm-verify checks the cluster and
// namespace Helm installs to. HELM_KUBECONTEXT and HELM_NAMESPACE (Helm
// 4 sets them for a plugin; Helm 3 passes its environment) win over the
// kubeconfig's current context and its namespace; a verify that cannot
// tell which cluster or namespace it checks says so, and strict (the
// default) refuses.
func TestHelmVerifyChecksHelmsCluster(t *testing.T) {
	wrong := newFakeAPI(t, readExample(t, exampleState))
	wrong.answerWith(forbiddenResources)
	right := newFakeAPI(t, readExample(t, exampleState))
	// The current context is the wrong cluster, in namespace default.
	kc := kubeconfig(t, "default", [2]string{"wrong", wrong.URL}, [2]string{"right", right.URL})
	clean := render(t, chartDisk(t, builtinPool))
	unplaced := strings.Replace(clean, "  name: kubernetes-demo-md0-0f1e2d3c\n  namespace: tenant-demo\n", "  name: kubernetes-demo-md0-0f1e2d3c\n", 1)
	if unplaced == clean {
		t.Fatal("the template still names its namespace")
	}
	env := func(kv ...string) []string { return append([]string{"KUBECONFIG=" + kc}, kv...) }
	verify := []string{"helm-verify", "--catalog", exampleCatalog}

	r := exeEnv(t, binary, env("HELM_KUBECONTEXT=right", "HELM_NAMESPACE=tenant-demo"), unplaced, verify...)
	if r.code != 0 || r.stdout != unplaced {
		t.Errorf("Helm's context and namespace: exit %d\n%s", r.code, r.stderr)
	}
	right.mu.Lock()
	paths := strings.Join(right.paths, "\n")
	right.mu.Unlock()
	if !strings.Contains(paths, "/namespaces/tenant-demo/") || strings.Contains(paths, "/namespaces/default/") {
		t.Errorf("the template is checked in the release's namespace:\n%s", paths)
	}

	r = exeEnv(t, binary, env("HELM_NAMESPACE=tenant-demo"), clean, verify...)
	if r.code != 3 || r.stdout != "" || !strings.Contains(r.stderr, "cannot tell which cluster Helm installs to") {
		t.Errorf("KUBECONFIG alone names no context Helm was given: exit %d\n%s", r.code, r.stderr)
	}
	r = exeEnv(t, binary, env("HELM_NAMESPACE=tenant-demo"), clean, append(verify, "--strict=false")...)
	if r.code == 3 || !strings.Contains(r.stderr, "warning StateUnverified: cannot tell which cluster Helm installs to") {
		t.Errorf("not strict, it warns: exit %d\n%s", r.code, r.stderr)
	}
	r = exeEnv(t, binary, env("HELM_KUBECONTEXT=right"), unplaced, verify...)
	if r.code != 3 || !strings.Contains(r.stderr, "cannot tell the release's namespace: 1 template names none") {
		t.Errorf("a template without a namespace, and no namespace from Helm: exit %d\n%s", r.code, r.stderr)
	}
	// The flags win over Helm's environment, and say it all.
	r = exeEnv(t, binary, env("HELM_KUBECONTEXT=wrong"), unplaced, append(verify, "--context", "right", "-n", "tenant-demo")...)
	if r.code != 0 {
		t.Errorf("--context and -n: exit %d\n%s", r.code, r.stderr)
	}
	// The templates that name their namespace need none from Helm.
	r = exeEnv(t, binary, env("HELM_KUBECONTEXT=right"), clean, verify...)
	if r.code != 0 {
		t.Errorf("placed templates: exit %d\n%s", r.code, r.stderr)
	}
}
