package clusterread

import (
	"context"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Source is one client's way to read the kinds the planner needs.
type Source interface {
	// List appends to into every object of kind in namespace ("" for all
	// namespaces, and for cluster-scoped kinds).
	List(ctx context.Context, kind state.Kind, namespace string, into *state.State) error
	// Get appends to into the named object; an absent object is the API's
	// NotFound error.
	Get(ctx context.Context, kind state.Kind, namespace, name string, into *state.State) error
}

// Read makes the calls that answer req through src and returns what they
// observed. It returns a *ReadError when a call fails for a reason that is
// not a refusal (a timeout, a server error, a cancelled context): the caller
// should retry, not plan on a partial view.
func Read(ctx context.Context, src Source, req state.Request, limit int) (*state.State, error) {
	st := &state.State{}
	var (
		unserved state.Kind                         // kinds the server does not serve
		wideOK   state.Kind                         // kinds listed in full
		nsOK     = map[state.Kind]map[string]bool{} // namespaced kinds listed in a namespace
		nsTried  = map[string]bool{}                // namespaces a namespaced kind was listed in
		gotRefs  = map[state.Ref]bool{}
	)
	for _, c := range Calls(req, limit) {
		if unserved.Has(c.Kind) {
			continue
		}
		var err error
		if c.Verb == List {
			err = src.List(ctx, c.Kind, c.Namespace, st)
		} else {
			err = src.Get(ctx, c.Kind, c.Namespace, c.Name, st)
		}
		if c.Verb == List && c.Namespace != "" {
			nsTried[c.Namespace] = true
		}
		switch classify(c, err) {
		case read, absent:
			switch {
			case c.Verb == Get:
				gotRefs[state.Ref{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name}] = true
			case c.Namespace == "":
				wideOK |= c.Kind
			default:
				if nsOK[c.Kind] == nil {
					nsOK[c.Kind] = map[string]bool{}
				}
				nsOK[c.Kind][c.Namespace] = true
			}
		case notServed:
			unserved |= c.Kind
		case refused:
		default:
			return nil, &ReadError{Verb: c.Verb, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Err: err}
		}
	}

	st.Observed = wideOK
	scoped := false
	for k, ok := range nsOK {
		if len(ok) > 0 {
			st.Observed |= k
			scoped = true
		}
	}
	if scoped {
		// One scope for every namespaced kind: a namespace counts only
		// where each observed namespaced kind was read in it.
		st.Namespaces = []string{}
		for _, ns := range sortedKeys(nsTried) {
			if everywhere(st.Observed&kinds.Namespaced, wideOK, nsOK, ns) {
				st.Namespaces = append(st.Namespaces, ns)
			}
		}
	}

	// Objects asked for by name are recorded whenever something read them,
	// found or not, so that a get answered by a list outside Namespaces
	// still tells the planner the object is absent.
	seen := map[state.Ref]bool{}
	for _, g := range req.Gets {
		if !seen[g] && (gotRefs[g] || wideOK.Has(g.Kind) || nsOK[g.Kind][g.Namespace]) {
			seen[g] = true
			st.Objects = append(st.Objects, g)
		}
	}
	kinds.Normalize(st)
	return st, nil
}

func everywhere(observed, wideOK state.Kind, nsOK map[state.Kind]map[string]bool, ns string) bool {
	for _, k := range observed.Each() {
		if !wideOK.Has(k) && !nsOK[k][ns] {
			return false
		}
	}
	return true
}
