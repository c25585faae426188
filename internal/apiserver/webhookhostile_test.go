package apiserver_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// Hostile requests to the real `worker-image webhook`, over TLS: each is a
// clear error, never an admission, and none holds the server.
func TestWebhookCommandHostile(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	bin := workerImage(t)
	// --context picks the suite's cluster from a kubeconfig whose current
	// context is another, unreachable one.
	w := startCommand(t, e, bin, "--kubeconfig", otherCurrentContext(t, e), "--context", "envtest",
		"--catalog-release", "", "--header-timeout", "1s", "--read-timeout", "2s", "--max-in-flight", "8")
	poolsPath, releasesPath := webhook.PoolsPath, webhook.ReleasesPath

	t.Run("one log line per decision", func(t *testing.T) {
		before := strings.Count(w.stderr.String(), `"msg":"admission"`)
		w.review(t, poolsPath, []byte(`{}`))
		pool := kubernetesNodes(fixtures.TenantNamespace, "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
		w.review(t, poolsPath, reviewOf(t, admissionv1.Create, pool, nil))
		// The child's standard error reaches the buffer through a pipe,
		// after its answers: wait for the lines to arrive.
		logged := w.stderr.String()
		for deadline := time.Now().Add(10 * time.Second); strings.Count(logged, `"msg":"admission"`) < before+2 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			logged = w.stderr.String()
		}
		assert.Equal(t, before+2, strings.Count(logged, `"msg":"admission"`), "%s", logged)
		assert.Contains(t, logged, `"outcome":"bad-request"`)
		assert.Contains(t, logged, `"outcome":"refused"`)
	})

	t.Run("reviews it cannot judge are a 400", func(t *testing.T) {
		pool := kubernetesNodes(fixtures.TenantNamespace, "demo-md0", builtin(nil))
		create := string(reviewOf(t, admissionv1.Create, pool, nil))
		for name, body := range map[string]string{
			"empty object": `{}`,
			"null":         `null`,
			"empty body":   ``,
			"no request":   `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
			"create":       strings.Replace(create, `"operation":"CREATE"`, `"operation":"create"`, 1),
			"PATCH":        strings.Replace(create, `"operation":"CREATE"`, `"operation":"PATCH"`, 1),
			"another kind": strings.Replace(create, `"kind":{"group":"apps.cozystack.io","version":"v1alpha1","kind":"KubernetesNodes"}`, `"kind":{"group":"","version":"v1","kind":"Pod"}`, 1),
		} {
			r := w.review(t, poolsPath, []byte(body))
			assert.False(t, r.Allowed, "%s is admitted", name)
			if assert.NotNil(t, r.Result, name) {
				assert.Equal(t, int32(http.StatusBadRequest), r.Result.Code, "%s: %s", name, r.Result.Message)
			}
		}
		assert.True(t, w.review(t, poolsPath, []byte(create)).Allowed, "neighbour: the very review, CREATE of a pool, is judged and admitted")
	})

	t.Run("a body over the bound is 413 before it is read", func(t *testing.T) {
		c := w.dial(t)
		_, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", poolsPath, 8<<20)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err, "answered with no byte of the body sent")
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	})

	t.Run("slow clients are cut", func(t *testing.T) {
		headers := w.dial(t)
		_, err := fmt.Fprintf(headers, "POST %s HTTP/1.1\r\nHost: webhook\r\n", poolsPath)
		require.NoError(t, err)
		body := w.dial(t)
		_, err = fmt.Fprintf(body, "POST %s HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", poolsPath)
		require.NoError(t, err)
		for name, c := range map[string]net.Conn{"headers": headers, "body": body} {
			answer, closed := cutByServer(c)
			assert.True(t, closed, "a client that trickles its %s stays connected", name)
			assert.NotContains(t, answer, `"allowed":true`, name)
		}
	})

	t.Run("the hostile review is a 400 that names its bound", func(t *testing.T) {
		var spec bytes.Buffer
		spec.WriteString(`{"cluster":"demo","osImage":{"builtin":{}}`)
		for i := range 460_000 {
			fmt.Fprintf(&spec, `,"f%09d":0`, i)
		}
		spec.WriteString("}")
		obj := fmt.Sprintf(`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"namespace":"tenant-demo","name":"demo-md0"},"spec":%s}`, spec.String())
		review := fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"hostile","operation":"CREATE","kind":{"group":"apps.cozystack.io","version":"v1alpha1","kind":"KubernetesNodes"},"namespace":"tenant-demo","name":"demo-md0","object":%s}}`, obj)
		require.Greater(t, len(review), 6_800_000)
		before := residentPeak(t, w.cmd.Process.Pid)
		for range 3 {
			r := w.review(t, poolsPath, []byte(review))
			assert.False(t, r.Allowed)
			assert.Equal(t, int32(http.StatusBadRequest), r.Result.Code)
			assert.Contains(t, r.Result.Message, "more than 4096 values")
		}
		// The process's peak resident memory, the review's buffers
		// included, grows by at most 64 MiB and stays within 256 MiB.
		after := residentPeak(t, w.cmd.Process.Pid)
		t.Logf("the webhook's peak RSS: %d MiB before three hostile reviews, %d MiB after", before>>20, after>>20)
		assert.LessOrEqual(t, after-before, int64(64<<20), "peak RSS %d MiB before, %d MiB after", before>>20, after>>20)
		assert.LessOrEqual(t, after, int64(256<<20), "peak RSS %d MiB", after>>20)
	})

	t.Run("many findings are a bounded answer", func(t *testing.T) {
		spec := builtin(nil)
		for i := range 1000 {
			spec[fmt.Sprintf("unknown%04d", i)] = i
		}
		r := w.review(t, poolsPath, reviewOf(t, admissionv1.Create, kubernetesNodes(fixtures.TenantNamespace, "demo-md0", spec), nil))
		require.True(t, r.Allowed, "%+v", r.Result)
		require.Len(t, r.Warnings, 17)
		assert.Contains(t, r.Warnings[16], "984 more warnings not shown")
	})

	t.Run("format characters are escaped", func(t *testing.T) {
		spec := builtin(map[string]any{"storageClass": "local\u202e\u2028", "unknown\u2066": 1})
		r := w.review(t, poolsPath, reviewOf(t, admissionv1.Create, kubernetesNodes(fixtures.TenantNamespace, "demo-gpu", spec), nil))
		require.False(t, r.Allowed)
		texts := append([]string{r.Result.Message}, r.Warnings...)
		for _, c := range r.Result.Details.Causes {
			texts = append(texts, c.Message)
		}
		for _, text := range texts {
			assert.NotContains(t, text, "\u202e")
			assert.NotContains(t, text, "\u2028")
			assert.NotContains(t, text, "\u2066")
		}
		assert.Contains(t, r.Result.Message, `local\u202e\u2028`)
		assert.Contains(t, strings.Join(r.Warnings, "\n"), `unknown\u2066`)
	})

	t.Run("a release that becomes a pool's is judged as a create", func(t *testing.T) {
		values := builtin(map[string]any{"storageClass": fixtures.LocalClass})
		pool := helmRelease(fixtures.TenantNamespace, poolReleasePrefix+"demo-gpu", map[string]any{
			"chartRef": map[string]any{"kind": poolChartRef.Kind, "name": poolChartRef.Name, "namespace": poolChartRef.Namespace},
			"values":   values,
		})
		other := helmRelease(fixtures.TenantNamespace, poolReleasePrefix+"demo-gpu", map[string]any{
			"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-postgres-application-default-postgres", "namespace": "cozy-system"},
			"values":   values,
		})
		r := w.review(t, releasesPath, reviewOf(t, admissionv1.Update, pool, other))
		assert.False(t, r.Allowed, "no disk of this chart before: %q", r.Warnings)
		r = w.review(t, releasesPath, reviewOf(t, admissionv1.Update, pool, pool))
		assert.True(t, r.Allowed, "neighbour: the same chart's release, as it was, is unchanged: %+v", r.Result)
	})
}

// A webhook that may not read what it judges by says so, with what to
// grant, in every admission (denied, 500) and in its log, instead of
// waiting on an informer that never syncs.
func TestWebhookCommandForbidden(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleasesServed(t, e)
	rules := chartWebhook(t, map[string]any{}).rules
	// The ClusterRole, without the Role that lets it read the catalog
	// release.
	user := e.User(t, "worker-image-webhook-without-role", rules...)
	w := launchCommand(t, e, workerImage(t), "--kubeconfig", kubeconfig(t, user))
	pool := kubernetesNodes(fixtures.TenantNamespace, "demo-md0", builtin(nil))
	var last string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		require.False(t, time.Now().After(deadline), "never said forbidden: last answer %q; log %s", last, w.stderr.String())
		resp, err := w.client.Post("https://"+w.addr+webhook.PoolsPath, "application/json", bytes.NewReader(reviewOf(t, admissionv1.Create, pool, nil)))
		if err != nil {
			last = err.Error()
			continue
		}
		var ar admissionv1.AdmissionReview
		err = json.NewDecoder(resp.Body).Decode(&ar)
		resp.Body.Close()
		require.NoError(t, err)
		require.False(t, ar.Response.Allowed, "admitted while it may not read the catalog")
		last = ar.Response.Result.Message
		if strings.Contains(last, "forbidden") {
			break
		}
	}
	assert.Contains(t, last, "forbidden: grant list and watch on helmreleases.helm.toolkit.fluxcd.io in namespace cozy-system (resourceNames: kubernetes-worker-image)")
	assert.NotContains(t, last, "storageclasses", "the ClusterRole grants the rest")
	assert.Contains(t, w.stderr.String(), "forbidden: grant list and watch on helmreleases")
}

// otherCurrentContext is a kubeconfig of the suite's cluster, as context
// envtest, whose current context is one no server answers.
func otherCurrentContext(t *testing.T, e *apiserver.Env) string {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(kubeconfig(t, e.Config))
	require.NoError(t, err)
	kc.Clusters["nowhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	kc.Contexts["nowhere"] = &clientcmdapi.Context{Cluster: "nowhere", AuthInfo: "user"}
	kc.CurrentContext = "nowhere"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// dial opens a TLS connection that speaks HTTP/1.1 to the command.
func (w *command) dial(t *testing.T) *tls.Conn {
	t.Helper()
	c, err := tls.Dial("tcp", w.addr, &tls.Config{RootCAs: w.roots, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// cutByServer reports whether the server ends the connection (an answer
// and the end, or the end alone) before the client gives up, after a
// minute: a liveness check, not a measure of time.
func cutByServer(c net.Conn) (answer string, closed bool) {
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(b), false
	}
	return string(b), true
}

// residentPeak is the peak resident set of process pid (VmHWM), in bytes.
func residentPeak(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
