package invariants_test

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// aboutTheGolden are the refusals and warnings whose message must name the
// golden they are about.
var aboutTheGolden = map[guard.Reason]bool{
	guard.GoldenNotInCatalog: true, guard.GoldenImportFailed: true, guard.StorageClassMismatch: true,
	guard.DiskSmallerThanGolden: true, guard.HostAssistedClone: true,
	guard.GoldenPending: true, guard.GoldenImportStalled: true, guard.GoldenUnavailable: true,
}

// builtin reports whether a pool takes the clone path.
func builtin(p plan.Pool) bool {
	img := p.Spec.OSImage
	return img != nil && img.Builtin != nil && img.Factory == nil
}

// TestEveryRefusalIsTyped (invariant 7): whatever the inputs, consistent
// or not, a pool is planned with no error or refused with one that opens
// (unwrapped to each *guard.Refusal, errors.As for the first, errors.Is with the
// reason) into the result's refusals, each with a known refusal reason, a
// non-empty values field, the pool as its subject and a message that names
// the pool, and the golden where one is concerned. A planned pool's
// warnings have a known warning reason (or InvalidQuantity, which the HTTP
// path warns, StorageClassNotFound and DiskUnrenderable, which only the
// HTTP path warns, and the HTTP path's InvalidSchematicID, InvalidVersion
// and InvalidImageFactoryURL at talos.*), a field or, for StateUnverified,
// the kind it names, and name the pool. A refused pool carries no disk.
func TestEveryRefusalIsTyped(t *testing.T) {
	rapid.Check(t, everyRefusalIsTyped)
}

func everyRefusalIsTyped(t *rapid.T) {
	opts := plantest.Options{Inconsistent: rapid.Bool().Draw(t, "inconsistent")}
	s := plantest.Scenarios(opts).Draw(t, "scenario")
	cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
	for i, p := range s.Pools {
		res, err := plan.Plan(p, cat, snap)
		subject := poolSubject(p)
		if !sameError(err, res.Refusals) || (err == nil) != (res.Outcome == plan.Planned) || (err != nil) != (res.Outcome == plan.Refused) {
			t.Fatalf("pool %d: outcome %q with error %v (result holds %v)", i, res.Outcome, err, res.Refusals)
		}
		if err != nil && (res.Disk.Name != "" || res.Disk.Spec.Source != nil || res.Disk.Spec.Storage != nil) {
			t.Fatalf("pool %d: refused with a disk %+v", i, res.Disk)
		}
		rs := fixtures.Refusals(err)
		if err != nil && len(rs) == 0 {
			t.Fatalf("pool %d: an error that is no refusal: %v", i, err)
		}
		for _, r := range rs {
			msg := r.Error()
			switch {
			case !fixtures.IsRefusalReason(r.Reason):
				t.Fatalf("pool %d: refusal reason %q is no known refusal", i, r.Reason)
			case r.Field == "":
				t.Fatalf("pool %d: %s has no field", i, r.Reason)
			case r.Subject != subject || !strings.Contains(msg, subject):
				t.Fatalf("pool %d: %s names %q, not %q: %s", i, r.Reason, r.Subject, subject, msg)
			case aboutTheGolden[r.Reason] && goldenOf(p) != "" && !strings.Contains(msg, goldenOf(p)):
				t.Fatalf("pool %d: %s does not name golden %s: %s", i, r.Reason, goldenOf(p), msg)
			case !errors.Is(err, r.Reason):
				t.Fatalf("pool %d: errors.Is does not find %s", i, r.Reason)
			}
		}
		var first *guard.Refusal
		if err != nil && (!errors.As(err, &first) || first.Reason != rs[0].Reason) {
			t.Fatalf("pool %d: errors.As does not open %v", i, err)
		}
		for _, w := range res.Warnings {
			switch {
			case !fixtures.IsWarningReason(w.Reason) && w.Reason != guard.InvalidQuantity && !(fixtures.WarnsOnHTTPPath(w.Reason, w.Field) && !builtin(p)):
				t.Fatalf("pool %d: warning reason %q is no known warning", i, w.Reason)
			case w.Reason == guard.StateUnverified:
				if k, ok := state.KindByName(w.Kind); !ok || stateindex.Of(snap).Observed(k) && s.State.Namespaces == nil || w.Field == "" {
					t.Fatalf("pool %d: StateUnverified names %q at %q", i, w.Kind, w.Field)
				}
			case w.Kind != "":
				t.Fatalf("pool %d: %s names a kind, %q", i, w.Reason, w.Kind)
			case w.Field == "":
				t.Fatalf("pool %d: %s has no field", i, w.Reason)
			}
			if w.Subject != subject || !strings.Contains(w.String(), subject) {
				t.Fatalf("pool %d: warning %s names %q, not %q", i, w.Reason, w.Subject, subject)
			}
			if aboutTheGolden[w.Reason] && !strings.Contains(w.String(), goldenOf(p)) {
				t.Fatalf("pool %d: %s does not name golden %s: %s", i, w.Reason, goldenOf(p), w.String())
			}
		}
	}
}
