package apiserver_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
		assert.Equal(t, []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Role", "RoleBinding",
			"Service", "Deployment", "PodDisruptionBudget", "ValidatingWebhookConfiguration"}, kinds)
		// The API server takes them as they are (a server-side dry run
		// validates every object, the webhook configuration's CEL included).
		e.Namespace(t, "cozy-worker-image-cli")
		e.Namespace(t, webhook.DefaultCatalogRelease().Namespace)
		file := writeFile(t, "manifests.yaml", string(out))
		e.Kubectl(t, "apply", "--dry-run=server", "-f", file)
	})

	t.Run("serve", func(t *testing.T) {
		w := startCommand(t, e, bin, "--catalog-release", "")

		// An admission review, as the API server sends it.
		pool := kubernetesNodes(fixtures.TenantNamespace, "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
		answer := w.review(t, "/validate-kubernetesnodes", reviewOf(t, admissionv1.Create, pool, nil))
		assert.False(t, answer.Allowed, "the catalog read back from the goldens refuses the class: %+v", answer.Result)
		assert.Equal(t, "StorageClassMismatch", string(answer.Result.Details.Causes[0].Type))

		require.NoError(t, w.cmd.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-w.exited:
			assert.NoError(t, err, "SIGTERM stops it cleanly: %s", w.stderr.String())
		case <-time.After(30 * time.Second):
			t.Fatalf("still running 30s after SIGTERM: %s", w.stderr.String())
		}
	})
}

// command is a running `worker-image webhook`.
type command struct {
	cmd    *exec.Cmd
	exited chan error
	stderr *lockedBuffer
	// addr is host:port of its webhook server, roots trust its
	// certificate.
	addr   string
	roots  *x509.CertPool
	client *http.Client
	// health is its readiness endpoint.
	health string
}

// launchCommand runs `worker-image webhook` against e with a certificate
// envtest makes, and more flags, until the test ends.
func launchCommand(t *testing.T, e *apiserver.Env, bin string, args ...string) *command {
	t.Helper()
	return launchCommandEnv(t, e, bin, nil, args...)
}

// launchCommandEnv is launchCommand with more environment variables.
func launchCommandEnv(t *testing.T, e *apiserver.Env, bin string, env []string, args ...string) *command {
	t.Helper()
	certs := &envtest.WebhookInstallOptions{}
	require.NoError(t, certs.PrepWithoutInstalling())
	t.Cleanup(func() { _ = certs.Cleanup() })
	health := freeAddress(t)
	cmd := exec.Command(bin, append([]string{"webhook",
		"--cert-dir", certs.LocalServingCertDir, "--port", itoa(certs.LocalServingPort),
		"--kubeconfig", kubeconfig(t, e.Config),
		"--metrics-bind-address", "0", "--health-probe-bind-address", health}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	w := &command{cmd: cmd, exited: make(chan error, 1), stderr: &lockedBuffer{}}
	cmd.Stderr = w.stderr
	require.NoError(t, cmd.Start())
	go func() { w.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	w.health = "http://" + health + "/readyz"
	w.addr = certs.LocalServingHost + ":" + itoa(certs.LocalServingPort)
	w.roots = x509.NewCertPool()
	w.roots.AppendCertsFromPEM(certs.LocalServingCAData)
	w.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: w.roots, MinVersion: tls.VersionTLS12}}}
	return w
}

// startCommand is launchCommand, returning once the command is ready.
func startCommand(t *testing.T, e *apiserver.Env, bin string, args ...string) *command {
	t.Helper()
	w := launchCommand(t, e, bin, args...)
	waitReady(t, w.health)
	return w
}

// lockedBuffer is a buffer a command writes while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// post sends body to the command's path over TLS; it returns the HTTP
// status and the answer.
func (w *command) post(t *testing.T, path string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := w.client.Post("https://"+w.addr+path, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, out
}

// review sends an AdmissionReview and reads the response it answers.
func (w *command) review(t *testing.T, path string, body []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	_, out := w.post(t, path, body)
	var answer admissionv1.AdmissionReview
	require.NoError(t, json.Unmarshal(out, &answer), "%s", out)
	require.NotNil(t, answer.Response, "%s", out)
	return answer.Response
}

// reviewOf is the AdmissionReview of op on obj (and old), as the API
// server sends it.
func reviewOf(t *testing.T, op admissionv1.Operation, obj, old *unstructured.Unstructured) []byte {
	t.Helper()
	raw, err := json.Marshal(obj.Object)
	require.NoError(t, err)
	req := &admissionv1.AdmissionRequest{UID: "cli", Operation: op, Namespace: obj.GetNamespace(), Name: obj.GetName(),
		Kind: metav1.GroupVersionKind(obj.GroupVersionKind()), Object: runtime.RawExtension{Raw: raw}}
	if old != nil {
		req.OldObject.Raw, err = json.Marshal(old.Object)
		require.NoError(t, err)
	}
	review, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req,
	})
	require.NoError(t, err)
	return review
}

func itoa(i int) string { return strconv.Itoa(i) }
