package apiserver_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// The load of adapters/webhook's TestLoad, on the webhook served from a
// manager's informer cache synced with the real API server: 2,000 admission
// requests from 32 concurrent clients, straight to the webhook over
// loopback TLS, every answer checked, p50 and p99 logged (never asserted:
// the machines are shared).
func TestWebhookLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const (
		requests = 2000
		clients  = 32
	)
	e := apiserver.Get(t)
	e.Cluster(t)
	s := serveWebhook(t, e, "worker-image-webhook-load")

	type probe struct {
		body    []byte
		allowed bool
	}
	review := func(obj *unstructured.Unstructured) []byte {
		raw, err := json.Marshal(obj.Object)
		require.NoError(t, err)
		b, err := json.Marshal(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{UID: "load", Operation: admissionv1.Create, Namespace: obj.GetNamespace(), Name: obj.GetName(),
				Kind: metav1.GroupVersionKind(obj.GroupVersionKind()), Object: runtime.RawExtension{Raw: raw}},
		})
		require.NoError(t, err)
		return b
	}
	// No catalog release: the catalog is not deployed, so a new clone is
	// refused GoldenNotInCatalog, and the pool that has cloned is admitted
	// with GoldenUnavailable, each after reading what its plan needs.
	probes := []probe{
		{body: review(kubernetesNodes(fixtures.TenantNamespace, "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass})))},
		{body: review(kubernetesNodes(fixtures.TenantNamespace, fixtures.PoolName, builtin(nil))), allowed: true},
		{body: review(kubernetesNodes(fixtures.TenantNamespace, "demo-md1", map[string]any{"cluster": fixtures.ClusterName})), allowed: true},
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(s.install.LocalServingCAData)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: 64,
	}}
	url := fmt.Sprintf("https://%s:%d/validate-kubernetesnodes", s.install.LocalServingHost, s.install.LocalServingPort)
	send := func(p probe) (time.Duration, error) {
		began := time.Now()
		resp, err := c.Post(url, "application/json", bytes.NewReader(p.body))
		if err != nil {
			return 0, err
		}
		// Read to the end, so the connection is kept alive for the next.
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		var ar admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &ar); err != nil {
			return 0, err
		}
		took := time.Since(began)
		if ar.Response == nil || ar.Response.UID != "load" || ar.Response.Allowed != p.allowed {
			return 0, fmt.Errorf("wrong answer: %+v", ar.Response)
		}
		return took, nil
	}
	run := func(n int) ([]time.Duration, error) {
		jobs := make(chan int)
		var mu sync.Mutex
		var took []time.Duration
		var first error
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for i := range jobs {
					d, err := send(probes[i%len(probes)])
					mu.Lock()
					if err != nil && first == nil {
						first = fmt.Errorf("request %d: %w", i, err)
					}
					took = append(took, d)
					mu.Unlock()
				}
			})
		}
		for i := range n {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		return took, first
	}
	_, err := run(64)
	require.NoError(t, err, "warm-up")
	began := time.Now()
	took, err := run(requests)
	wall := time.Since(began)
	require.NoError(t, err)
	slices.Sort(took)
	q := func(f float64) time.Duration { return took[int(f*float64(len(took)-1))].Round(time.Microsecond) }
	t.Logf("informer cache: %d admission requests, %d clients: p50 %v, p90 %v, p99 %v, max %v; %.0f requests/s",
		requests, clients, q(0.5), q(0.9), q(0.99), took[len(took)-1].Round(time.Microsecond), float64(requests)/wall.Seconds())
}
