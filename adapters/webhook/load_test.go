package webhook_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// probe is one kind of request of the load, and how to tell its answer
// is right.
type probe struct {
	name    string
	path    string
	body    []byte
	allowed bool
	// cause is the first cause's type and field of a denial; warning a
	// text one warning holds.
	cause   cause
	warning string
}

// probes are the requests of the load: each path, each answer.
func probes(t testing.TB) []probe {
	review := func(kind metav1.GroupVersionKind, obj, old any) []byte {
		req := request(t, admissionv1.Create, kind, obj, old)
		if old != nil {
			req.Operation = admissionv1.Update
		}
		ar := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: &req.AdmissionRequest}
		b, err := json.Marshal(ar)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	edited := catalogValues()
	edited["images"].([]any)[0].(map[string]any)["storage"] = "8Gi"
	return []probe{
		{name: "refused pool", path: "/validate-kubernetesnodes",
			body:  review(poolKind, pool("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass})), nil),
			cause: cause{"StorageClassMismatch", "spec.storageClass"}},
		{name: "planned pool", path: "/validate-kubernetesnodes", allowed: true,
			body: review(poolKind, pool(fixtures.TenantNamespace, fixtures.PoolName, builtin(nil)), nil)},
		{name: "pending pool", path: "/validate-kubernetesnodes", allowed: true, warning: "(GoldenPending)",
			body: review(poolKind, pool("tenant-a", "demo-md1", builtin(map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": PendingVersion}}})), nil)},
		{name: "http pool", path: "/validate-kubernetesnodes", allowed: true,
			body: review(poolKind, pool("tenant-a", "demo-md2", map[string]any{"cluster": "demo"}), nil)},
		{name: "pool release", path: "/validate-helmreleases",
			body:  review(releaseKind, poolRelease("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass})), nil),
			cause: cause{"StorageClassMismatch", "spec.values.storageClass"}},
		{name: "catalog edit", path: "/validate-helmreleases",
			body:  review(releaseKind, catalogRelease(edited), catalogRelease(catalogValues())),
			cause: cause{"CatalogEntryImmutable", "spec.values.images[0].storage"}},
		{name: "unchanged update", path: "/validate-kubernetesnodes", allowed: true,
			body: review(poolKind, pool(fixtures.TenantNamespace, fixtures.PoolName, builtin(map[string]any{"maxReplicas": 5})),
				pool(fixtures.TenantNamespace, fixtures.PoolName, builtin(nil)))},
	}
}

// check reports what is wrong with an answer to p.
func (p probe) check(status int, body []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", status, body)
	}
	var ar admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &ar); err != nil || ar.Response == nil {
		return fmt.Errorf("not an AdmissionReview (%v): %s", err, body)
	}
	r := ar.Response
	if r.UID != "uid" || r.Allowed != p.allowed {
		return fmt.Errorf("uid %q allowed %v: %+v", r.UID, r.Allowed, r.Result)
	}
	if !p.allowed {
		if r.Result == nil || r.Result.Details == nil || len(r.Result.Details.Causes) == 0 {
			return fmt.Errorf("a denial without causes: %+v", r.Result)
		}
		if c := r.Result.Details.Causes[0]; (cause{string(c.Type), c.Field}) != p.cause {
			return fmt.Errorf("cause %s at %s, want %v", c.Type, c.Field, p.cause)
		}
	}
	if p.warning != "" && !strings.Contains(strings.Join(r.Warnings, "\n"), p.warning) {
		return fmt.Errorf("no warning %q in %q", p.warning, r.Warnings)
	}
	return nil
}

// serve runs the webhooks on the webhook server of NewServer, within its
// default limits, on
// loopback with a certificate made for the test, and returns its address
// and a client that trusts it.
func serve(t testing.TB) (string, *http.Client) {
	t.Helper()
	dir := t.TempDir()
	pool := selfSigned(t, dir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := webhook.NewServer(crwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir}, webhook.Limits{})
	validator(cluster()...).Register(srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	addr := fmt.Sprintf("https://127.0.0.1:%d", port)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 64,
	}}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err := srv.StartedChecker()(nil); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the webhook server never started: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return addr, c
}

// selfSigned writes tls.crt and tls.key for 127.0.0.1 into dir and returns
// a pool that trusts them.
func selfSigned(t testing.TB, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "worker-image-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return pool
}

// The load: 2,000 admission requests from 32 concurrent clients over
// loopback TLS, every answer checked, p50 and p99 logged. The cache is
// warm (a fake client in memory, as a synced informer cache is) and the
// connections are open (the API server keeps them alive): 64 requests go
// first, untimed. Latency is logged, never asserted: the machines are
// shared; the target is p99 ≤ 20 ms.
func TestLoad(t *testing.T) {
	const (
		requests = 2000
		clients  = 32
	)
	addr, c := serve(t)
	ps := probes(t)
	send := func(p probe) (time.Duration, error) {
		began := time.Now()
		resp, err := c.Post(addr+p.path, "application/json", bytes.NewReader(p.body))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var body bytes.Buffer
		if _, err := body.ReadFrom(resp.Body); err != nil {
			return 0, err
		}
		took := time.Since(began)
		return took, p.check(resp.StatusCode, body.Bytes())
	}
	run := func(n int) ([]time.Duration, []error) {
		jobs := make(chan int)
		var mu sync.Mutex
		var took []time.Duration
		var errs []error
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for i := range jobs {
					p := ps[i%len(ps)]
					d, err := send(p)
					mu.Lock()
					if err != nil {
						errs = append(errs, fmt.Errorf("request %d (%s): %w", i, p.name, err))
					} else {
						took = append(took, d)
					}
					mu.Unlock()
				}
			})
		}
		for i := range n {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		return took, errs
	}

	if _, errs := run(64); len(errs) > 0 {
		t.Fatalf("warm-up: %v", errs[0])
	}
	began := time.Now()
	took, errs := run(requests)
	wall := time.Since(began)
	for i, err := range errs {
		if i == 5 {
			t.Errorf("… %d errors in all", len(errs))
			break
		}
		t.Error(err)
	}
	if len(took) != requests {
		t.Fatalf("%d of %d requests answered right", len(took), requests)
	}
	slices.Sort(took)
	q := func(f float64) time.Duration { return took[int(f*float64(len(took)-1))] }
	t.Logf("%d admission requests, %d clients, %d kinds of request: p50 %v, p90 %v, p99 %v, max %v; %.0f requests/s",
		requests, clients, len(ps), q(0.50).Round(time.Microsecond), q(0.90).Round(time.Microsecond),
		q(0.99).Round(time.Microsecond), took[len(took)-1].Round(time.Microsecond), float64(requests)/wall.Seconds())
}
