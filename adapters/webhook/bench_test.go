package webhook_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkAdmission is one admission as the webhook server runs it:
// decode the AdmissionReview, read what the plan (or render) needs from
// the cache (a fake client in memory), plan, and encode the answer. No
// TLS, no network.
func BenchmarkAdmission(b *testing.B) {
	v := validator(cluster()...)
	pools, releases := v.Pools(), v.Releases()
	for _, p := range probes(b) {
		hook := pools
		if strings.Contains(p.path, "helmreleases") {
			hook = releases
		}
		b.Run(strings.ReplaceAll(p.name, " ", "-"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, p.path, bytes.NewReader(p.body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				hook.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("HTTP %d", rec.Code)
				}
			}
		})
	}
}
