package computeplane

import (
	"encoding/json"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// FuzzDecodeValues feeds arbitrary bytes through what `worker-image
// computeplane -f` does: decode, plan, print. Nothing panics; the decoder
// fails only with an error that is not a refusal, and every refusal and
// warning of the plan is typed, known and at a field (a warning's reason
// one the HTTP path warns of). The seed corpus is
// testdata/fuzz/FuzzDecodeValues.
func FuzzDecodeValues(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		values, err := DecodeValues(data)
		if err != nil {
			if len(fixtures.Refused(err)) > 0 {
				t.Fatalf("undecodable input came back as a refusal: %v", err)
			}
			return
		}
		res, err := Plan(values)
		if (err == nil) != (len(res.Refusals) == 0) {
			t.Fatalf("error %v with refusals %v", err, res.Refusals)
		}
		for _, r := range res.Refusals {
			if !fixtures.IsRefusalReason(r.Reason) || r.Field == "" {
				t.Fatalf("refusal %q at %q", r.Reason, r.Field)
			}
		}
		if err != nil && len(res.Pools) > 0 {
			t.Fatalf("a refused plan has pools")
		}
		for _, w := range res.Warnings {
			// A pool release is planned on the HTTP path, which warns of
			// a diskSize the chart rendered (fixtures.WarnsOnHTTPPath).
			if !fixtures.IsWarningReason(w.Reason) && !fixtures.WarnsOnHTTPPath(w.Reason, w.Field) || w.Field == "" {
				t.Fatalf("warning %q at %q", w.Reason, w.Field)
			}
		}
		for _, p := range res.Pools {
			if bad := outsideAllowlist(p.Values, ""); len(bad) > 0 {
				t.Fatalf("pool %q carries fields outside the allowlist: %v", p.Name, bad)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("the result is no JSON: %v", err)
		}
	})
}
