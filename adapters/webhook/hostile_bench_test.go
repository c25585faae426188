package webhook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// hostileKeys is how many unknown keys the hostile pool's spec holds: a
// 6.9 MB AdmissionReview, within the API server's own bound on a request.
const hostileKeys = 460_000

// hostileReview is a KubernetesNodes create whose spec holds keys unknown
// to the chart, n of them, each with a short value.
func hostileReview(t testing.TB, n int) []byte {
	t.Helper()
	var spec bytes.Buffer
	spec.WriteString(`{"cluster":"demo","storageClass":"replicated","osImage":{"builtin":{}}`)
	for i := range n {
		fmt.Fprintf(&spec, `,"f%09d":0`, i)
	}
	spec.WriteString("}")
	obj := fmt.Sprintf(`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"namespace":%q,"name":%q},"spec":%s}`,
		fixtures.TenantNamespace, fixtures.PoolName, spec.String())
	return reviewOf(t, admissionv1.Create, poolKind, []byte(obj), nil)
}

// reviewOf is an AdmissionReview of op on the raw objects.
func reviewOf(t testing.TB, op admissionv1.Operation, kind metav1.GroupVersionKind, obj, old []byte) []byte {
	t.Helper()
	req := request(t, op, kind, obj, old)
	req.Namespace, req.Name = fixtures.TenantNamespace, fixtures.PoolName
	b, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: &req.AdmissionRequest})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// peakHeap samples the heap's objects while f runs and returns how far
// they grew above what they were before it; the collection before it is
// not timed.
func peakHeap(b *testing.B, f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	b.StopTimer()
	runtime.GC()
	before := read()
	b.StartTimer()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	f()
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	close(done)
	<-stopped
	if p := peak.Load(); p > before {
		return p - before
	}
	return 0
}

// BenchmarkHostileReview is the hostile pool beside an ordinary one,
// through the pools webhook as the server runs it (no TLS): time,
// allocated bytes, and peak-heap-MiB, how far the heap grew while one was
// judged.
func BenchmarkHostileReview(b *testing.B) {
	v := validator(cluster()...)
	hook := v.Pools()
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"ordinary", hostileReview(b, 0)},
		{"keys=" + strconv.Itoa(hostileKeys), hostileReview(b, hostileKeys)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			var peak uint64
			for b.Loop() {
				p := peakHeap(b, func() {
					req := httptest.NewRequest(http.MethodPost, "/validate-kubernetesnodes", bytes.NewReader(c.body))
					req.Header.Set("Content-Type", "application/json")
					rec := httptest.NewRecorder()
					hook.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("HTTP %d", rec.Code)
					}
				})
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
