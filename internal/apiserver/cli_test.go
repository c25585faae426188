package apiserver_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// The CLI on the real API server: it plans the KubernetesNodes
// that live in the cluster, by name, by namespace and in every namespace,
// reading their state through the same bounded reads, and gives the same
// output as from files of the same objects; installed as a kubectl plugin,
// `kubectl worker-image plan …` reads the cluster KUBECONFIG names.

// livePools are KubernetesNodes of the fixture cluster's tenants: the
// tenant's pool on its golden's class, one on the cluster default, one on
// another class than its golden's (refused), one that imports over HTTP.
var livePools = []string{
	`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":"demo-md0","namespace":"` + fixtures.TenantNamespace + `"},
	  "spec":{"cluster":"demo","storageClass":"replicated","osImage":{"builtin":{}}}}`,
	`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":"db-md0","namespace":"` + fixtures.OtherNamespace + `"},
	  "spec":{"cluster":"db","storageClass":"","osImage":{"builtin":{}}}}`,
	`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":"edge-md0","namespace":"` + fixtures.OtherNamespace + `"},
	  "spec":{"cluster":"edge","storageClass":"local","osImage":{"builtin":{}}}}`,
	`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":"web-md0","namespace":"` + fixtures.OtherNamespace + `"},
	  "spec":{"cluster":"web"}}`,
}

// createPools creates livePools once per control plane.
func createPools(t *testing.T, e *apiserver.Env) {
	t.Helper()
	for _, p := range livePools {
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(p), &u.Object))
		e.Namespace(t, u.GetNamespace())
		if err := e.Client.Create(context.Background(), u); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("create %s: %v", u.GetName(), err)
		}
		// The suite's API server is shared: other tests create pools of
		// the same names.
		removed(t, e, u)
	}
}

// kubeconfigOf writes a kubeconfig of cfg, in namespace, and returns its
// path.
func kubeconfigOf(t *testing.T, cfg *rest.Config, namespace string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin", Namespace: namespace}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// run runs the CLI in-process.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

func TestCLIPlansLivePools(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	createPools(t, e)
	t.Setenv("KUBECONFIG", "")
	kc := kubeconfigOf(t, e.Config, fixtures.OtherNamespace)
	cat := writeFile(t, "catalog.yaml", "enabled: true\n")
	base := []string{"--kubeconfig", kc, "--catalog", cat, "-o", "json"}

	outcomes := func(stdout string) map[string]string {
		t.Helper()
		var out struct {
			Pools []struct{ Namespace, Name, Outcome string }
		}
		require.NoError(t, yaml.Unmarshal([]byte(stdout), &out), stdout)
		m := map[string]string{}
		for _, p := range out.Pools {
			m[p.Namespace+"/"+p.Name] = p.Outcome
		}
		return m
	}

	code, byName, stderr := run(t, "", append([]string{"plan", "kubernetesnodes/demo-md0", "-n", fixtures.TenantNamespace}, base...)...)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, map[string]string{"tenant-demo/demo-md0": "planned"}, outcomes(byName), "by name, in -n's namespace")
	assert.NotContains(t, byName, "StateUnverified", "the admin reads every kind")

	code, inNS, stderr := run(t, "", append([]string{"plan", "-n", fixtures.OtherNamespace}, base...)...)
	assert.Equal(t, 3, code, stderr)
	assert.Equal(t, map[string]string{"tenant-other/db-md0": "planned", "tenant-other/edge-md0": "refused", "tenant-other/web-md0": "planned"}, outcomes(inNS),
		"every pool of the namespace; edge-md0 is on another class than its golden")

	code, ctxNS, _ := run(t, "", append([]string{"plan", "kubernetesnodes", "web-md0"}, base...)...)
	assert.Equal(t, 0, code)
	assert.Equal(t, map[string]string{"tenant-other/web-md0": "planned"}, outcomes(ctxNS), "without -n, the context's namespace")

	code, all, stderr := run(t, "", append([]string{"plan", "-A"}, base...)...)
	assert.Equal(t, 3, code, stderr)
	for _, want := range []string{"tenant-demo/demo-md0", "tenant-other/db-md0", "tenant-other/edge-md0", "tenant-other/web-md0"} {
		assert.Contains(t, outcomes(all), want, "-A plans every namespace's pools")
	}

	// The same output as from files: kubectl get of the same pools, and a
	// state file of the same cluster, observed whole.
	dump := writeFile(t, "pools.yaml", string(e.Kubectl(t, "get", "kubernetesnodes", "-A", "-o", "yaml")))
	code, fromFile, stderr := run(t, "", append([]string{"plan", "-f", dump}, base...)...)
	assert.Equal(t, 3, code, stderr)
	assert.Equal(t, all, fromFile, "plan -A and plan -f of kubectl get -A -o yaml plan alike")
	state := writeFile(t, "state.yaml", string(fixtures.ListYAML(e.Objects(t)...)))
	code, offline, stderr := run(t, "", "plan", "-f", dump, "--state", state, "--observed", "all", "--catalog", cat, "-o", "json")
	assert.Equal(t, 3, code, stderr)
	assert.Equal(t, all, offline, "and as against a dump of the same cluster")

	code, nsFile, _ := run(t, "", append([]string{"plan", "-f", dump, "-n", fixtures.OtherNamespace}, base...)...)
	assert.Equal(t, 2, code, "a file of another namespace than -n's is an error, as kubectl's")
	assert.Empty(t, nsFile)
}

// TestCLIForbidden: a user with no RBAC on the live server plans with
// StateUnverified warnings that say Forbidden, with the verb and the
// resource: the pool is unverified (exit 4), never planned; --strict
// refuses them.
func TestCLIForbidden(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	createPools(t, e)
	t.Setenv("KUBECONFIG", "")
	kc := kubeconfigOf(t, withoutClasses(t, e), fixtures.TenantNamespace)
	pools := writeFile(t, "pools.yaml", livePools[0])
	cat := writeFile(t, "catalog.yaml", "enabled: true\n")
	code, stdout, stderr := run(t, "", "plan", "-f", pools, "--kubeconfig", kc, "--catalog", cat, "-o", "json")
	require.Equal(t, 4, code, stderr)
	assert.Contains(t, stdout, `"cause": "forbidden: cannot list storageclasses.storage.k8s.io (cluster-wide)"`)
	assert.Contains(t, stdout, `"outcome": "unverified"`)
	code, _, _ = run(t, "", "plan", "-f", pools, "--kubeconfig", kc, "--catalog", cat, "--strict")
	assert.Equal(t, 3, code, "--strict refuses what could not be read")
}

// TestKubectlPlugin runs `kubectl worker-image plan …` through the kubectl
// binary beside the suite's server, with the command on PATH as
// kubectl-worker_image, and KUBECONFIG naming the cluster: kubectl passes
// its plugin the environment, and the plugin loads it as kubectl does.
func TestKubectlPlugin(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	createPools(t, e)
	assets, err := apiserver.Assets()
	require.NoError(t, err)
	kubectl := filepath.Join(assets, "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl in %s: %s builds it unless ENVTEST_WITH_KUBECTL=0", assets, apiserver.BuildScript)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-worker_image"), "github.com/cozystack/kubernetes-worker-image/adapters/cli/cmd/worker-image")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the plugin: %v\n%s", err, out)
	}
	kc := kubeconfigOf(t, e.Config, fixtures.TenantNamespace)
	cat := writeFile(t, "catalog.yaml", "enabled: true\n")

	kubectlRun := func(args ...string) (int, string, string) {
		cmd := exec.Command(kubectl, args...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+kc)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errOut.String()
	}

	code, stdout, stderr := kubectlRun("plugin", "list")
	assert.Contains(t, stdout, "kubectl-worker_image", "kubectl finds the plugin: %d %s", code, stderr)

	code, stdout, stderr = kubectlRun("worker-image", "plan", "kubernetesnodes/demo-md0", "--catalog", cat)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "tenant-demo/demo-md0: planned, clone of golden "+fixtures.Golden)
	assert.NotContains(t, stdout+stderr, "StateUnverified", "KUBECONFIG's cluster was read")

	_, inProcess, _ := run(t, "", "plan", "kubernetesnodes/demo-md0", "--kubeconfig", kc, "--catalog", cat, "-o", "chart")
	_, viaKubectl, _ := kubectlRun("worker-image", "plan", "kubernetesnodes/demo-md0", "--catalog", cat, "-o", "chart")
	assert.Equal(t, inProcess, viaKubectl, "the plugin prints what the command prints")

	code, stdout, _ = kubectlRun("worker-image", "plan", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "kubectl worker-image plan", "its help names it as kubectl runs it")
}
