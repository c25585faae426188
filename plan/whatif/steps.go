package whatif

import (
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// steps orders what an operator does for the change: add every catalog
// entry a pool after the change needs (one edit of the catalog, whose
// goldens then import together); roll the pools that wait for nothing;
// then, golden by golden, wait for its import and roll the pools that
// clone it. A pool refused after the change for anything the steps do not
// fix has no step: it does not roll, and the report lists it first with
// its refusals.
func steps(pools []PoolDiff) []Step {
	out := []Step{}
	var waits []string
	rollsAfter := map[string][]string{}
	var free []string
	added := map[string]bool{}
	for _, p := range pools {
		a := p.After
		if a == nil || a.stuck {
			continue
		}
		g := a.NeededGolden
		if g != "" && a.GoldenState == NotInCatalog && !added[g] {
			added[g] = true
			out = append(out, Step{Action: AddCatalogEntry, Target: g})
		}
		// A golden matters to a pool that rolls onto it, starts on it or
		// is refused for it; one that stays on it is served as before.
		matters := p.Rolls || p.Before == nil || a.Outcome == plan.Refused
		wait := g != "" && matters && waitsFor(a)
		if wait {
			if _, ok := rollsAfter[g]; !ok {
				waits = append(waits, g)
				rollsAfter[g] = nil
			}
		}
		if !p.Rolls {
			continue
		}
		target := p.Namespace + "/" + p.Name
		if wait {
			rollsAfter[g] = append(rollsAfter[g], target)
		} else {
			free = append(free, target)
		}
	}
	for _, t := range free {
		out = append(out, Step{Action: RollPool, Target: t})
	}
	for _, g := range waits {
		out = append(out, Step{Action: WaitForGolden, Target: g})
		for _, t := range rollsAfter[g] {
			out = append(out, Step{Action: RollPool, Target: t})
		}
	}
	return out
}

// waitsFor reports whether the golden a side needs is not yet serving
// clones and will be: a golden the catalog does not serve but that is
// populated (an entry the change retires) serves as soon as its entry is
// back; a failed import is not waited for (the plan refuses it and says
// how to fix it).
func waitsFor(s *Side) bool {
	switch s.GoldenState {
	case NotInCatalog:
		return !s.populated
	case NotCreated, Importing, GoldenStateUnknown:
		return true
	}
	return false
}

// transfer counts what the rollout moves: every rolling pool's workers,
// over HTTP or by the storage layer as its plan after the change says,
// and each golden's import that has still to happen (one HTTP pull of the
// image per golden not created yet). A golden whose state is not known
// makes the HTTP figure not known.
func transfer(pools []PoolDiff, size int64) Transfer {
	var t Transfer
	var httpBytes, cloneBytes int64
	httpKnown, cloneKnown := true, true
	imports := map[string]bool{}
	for _, p := range pools {
		a := p.After
		if a == nil || a.stuck {
			continue
		}
		// Whether its golden still has to be imported is not known.
		goldenUnknown := a.NeededGolden != "" && (p.Rolls || p.Before == nil) && a.GoldenState == GoldenStateUnknown
		if goldenUnknown {
			httpKnown = false
		}
		toImport := a.GoldenState == NotCreated || (a.GoldenState == NotInCatalog && !a.populated)
		if a.NeededGolden != "" && (p.Rolls || p.Before == nil) && toImport && !imports[a.NeededGolden] {
			imports[a.NeededGolden] = true
			httpBytes = addSat(httpBytes, size)
		}
		if goldenUnknown || p.Rolls && p.Workers == nil {
			t.Unverified = append(t.Unverified, p.Namespace+"/"+p.Name)
		}
		if !p.Rolls {
			continue
		}
		clone := a.NeededGolden != ""
		if p.Workers == nil {
			if clone {
				cloneKnown = false
			} else {
				httpKnown = false
			}
			continue
		}
		bytes := mulSat(int64(*p.Workers), size)
		if clone {
			cloneBytes = addSat(cloneBytes, bytes)
		} else {
			httpBytes = addSat(httpBytes, bytes)
		}
	}
	if httpKnown {
		t.HTTPBytes = &httpBytes
	}
	if cloneKnown {
		t.CloneBytes = &cloneBytes
	}
	return t
}
