package apiserver_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// workerImage builds the worker-image command into a temporary folder.
func workerImage(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "worker-image")
	build := exec.Command("go", "build", "-o", bin, "github.com/cozystack/kubernetes-worker-image/adapters/cli/cmd/worker-image")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build worker-image: %s", out)
	return bin
}

// kubeconfig writes cfg as a kubeconfig file.
func kubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "user"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// The command serves the webhook against a cluster until SIGTERM, and
// prints manifests the API server accepts.
func TestWebhookCommand(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	bin := workerImage(t)

	t.Run("bad flags", func(t *testing.T) {
		for _, args := range [][]string{
			{"webhook"},
			{"webhook", "--cert-dir", t.TempDir()},
			{"webhook", "manifests", "--failure-policy", "Never"},
			{"webhook", "manifests", "--catalog-release", "no-slash"},
			{"webhook", "serve"},
		} {
			cmd := exec.Command(bin, args...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "%v: %v %s", args, err, out)
			assert.Equal(t, 2, exit.ExitCode(), "%v is unusable input: %s", args, out)
		}
	})

	t.Run("manifests", func(t *testing.T) {
		out, err := exec.Command(bin, "webhook", "manifests", "--namespace", "cozy-worker-image-cli", "--ca-bundle", writeFile(t, "ca.pem", "not a CA")).Output()
		require.NoError(t, err)
		var kinds []string
		for _, doc := range strings.Split(string(out), "\n---\n")[1:] {
			var m map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(doc), &m))
			kinds = append(kinds, m["kind"].(string))
		}
		assert.Equal(t, []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
			"Service", "Deployment", "PodDisruptionBudget", "ValidatingWebhookConfiguration"}, kinds)
		// The API server takes them as they are (a server-side dry run
		// validates every object, the webhook configuration's CEL included).
		e.Namespace(t, "cozy-worker-image-cli")
		e.Namespace(t, webhook.DefaultCatalogRelease.Namespace)
		file := writeFile(t, "manifests.yaml", string(out))
		e.Kubectl(t, "apply", "--dry-run=server", "-f", file)
	})

	t.Run("serve", func(t *testing.T) {
		certs := &envtest.WebhookInstallOptions{}
		require.NoError(t, certs.PrepWithoutInstalling())
		t.Cleanup(func() { _ = certs.Cleanup() })
		health := freeAddress(t)
		cmd := exec.Command(bin, "webhook",
			"--cert-dir", certs.LocalServingCertDir, "--port", itoa(certs.LocalServingPort),
			"--kubeconfig", kubeconfig(t, e.Config), "--catalog-release", "",
			"--metrics-bind-address", "0", "--health-probe-bind-address", health)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
			}
		})
		waitReady(t, "http://"+health+"/readyz")

		// An admission review, as the API server sends it.
		pool := kubernetesNodes(fixtures.TenantNamespace, "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
		raw, err := json.Marshal(pool.Object)
		require.NoError(t, err)
		review, err := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{UID: "cli", Operation: admissionv1.Create, Namespace: pool.GetNamespace(), Name: pool.GetName(),
				Kind: metav1.GroupVersionKind(apiserver.PoolGVK), Object: runtime.RawExtension{Raw: raw}},
		})
		require.NoError(t, err)
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(certs.LocalServingCAData)
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
		resp, err := c.Post("https://"+certs.LocalServingHost+":"+itoa(certs.LocalServingPort)+"/validate-kubernetesnodes", "application/json", bytes.NewReader(review))
		require.NoError(t, err)
		defer resp.Body.Close()
		var answer admissionv1.AdmissionReview
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
		require.NotNil(t, answer.Response)
		assert.False(t, answer.Response.Allowed, "the catalog read back from the goldens refuses the class: %+v", answer.Response.Result)
		assert.Equal(t, "StorageClassMismatch", string(answer.Response.Result.Details.Causes[0].Type))

		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-exited:
			assert.NoError(t, err, "SIGTERM stops it cleanly: %s", stderr.String())
		case <-time.After(30 * time.Second):
			t.Fatalf("still running 30s after SIGTERM: %s", stderr.String())
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }
