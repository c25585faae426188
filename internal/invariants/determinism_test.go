package invariants_test

import (
	"reflect"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestDeterminismAndPurity (invariant 1): Plan is a function of its inputs.
// The same inputs, shared or rebuilt from copies, plan the same results;
// planning leaves the pool, the catalog and the state as they were
// (deep-copied before, compared after); planning the same pools from
// several goroutines at once, against one catalog and one snapshot, gives
// the same answers (run with -race, it also proves that nothing writes what
// the goroutines share); PlanAll is Plan per pool.
func TestDeterminismAndPurity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := plantest.Options{Inconsistent: rapid.Bool().Draw(t, "inconsistent")}
		s := plantest.Scenarios(opts).Draw(t, "scenario")

		pools := make([]plan.Pool, len(s.Pools))
		for i, p := range s.Pools {
			pools[i] = plantest.CopyPool(p)
		}
		values, st := plantest.CopyValues(s.Catalog), plantest.CopyState(s.State)
		cat := catalog.Compile(s.Catalog)
		catBefore := viewCatalog(cat)
		snap := state.NewSnapshot(s.State)

		first := plan.PlanAll(s.Pools, cat, snap)

		if !reflect.DeepEqual(pools, s.Pools) {
			t.Fatalf("planning changed the pools:\n%+v\nwere\n%+v", s.Pools, pools)
		}
		if !reflect.DeepEqual(values, s.Catalog) || !reflect.DeepEqual(catBefore, viewCatalog(cat)) {
			t.Fatalf("planning changed the catalog")
		}
		if !reflect.DeepEqual(st, s.State) {
			t.Fatalf("planning changed the state")
		}

		rebuilt := plan.PlanAll(pools, catalog.Compile(values), state.NewSnapshot(st))
		for i := range first {
			if d := sameResult(first[i], rebuilt[i]); d != "" {
				t.Fatalf("pool %d planned differently from equal inputs: %s", i, d)
			}
			one, err := plan.Plan(s.Pools[i], cat, snap)
			if d := sameResult(first[i], one); d != "" {
				t.Fatalf("pool %d: PlanAll and Plan differ: %s", i, d)
			}
			if !sameError(err, one.Refusals) {
				t.Fatalf("pool %d: Plan returned %v, its result holds %v", i, err, one.Refusals)
			}
		}

		const goroutines = 4
		concurrent := make([][]plan.Result, goroutines)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, p := range s.Pools {
					r, _ := plan.Plan(p, cat, snap)
					concurrent[g] = append(concurrent[g], r)
				}
			}()
		}
		wg.Wait()
		for g := range concurrent {
			for i := range first {
				if d := sameResult(first[i], concurrent[g][i]); d != "" {
					t.Fatalf("pool %d planned concurrently differs: %s", i, d)
				}
			}
		}
	})
}
