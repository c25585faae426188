package clusterread

import (
	"cmp"
	"slices"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// DefaultLimit is the most requests one namespaced kind gets before a single
// cluster-wide list replaces them. One pool needs two (its namespace's list
// and its golden's get); past a handful of pools one list is cheaper for
// both sides than a request per namespace.
const DefaultLimit = 8

// Verb is how a call reads.
type Verb string

const (
	Get  Verb = "get"
	List Verb = "list"
)

// Call is one request to the API server.
type Call struct {
	Verb      Verb
	Kind      state.Kind
	Namespace string // "" with List: every namespace
	Name      string
}

// Calls turns a Request into the requests that answer it: one list per
// cluster-scoped kind; for the namespaced kinds, one list per kind and
// requested namespace plus one get per object no list covers, unless a kind
// would take more than limit requests, in which case every namespaced kind
// is listed cluster-wide. Each kind therefore takes at most limit requests
// (one when it is listed), whatever the number of pools.
func Calls(req state.Request, limit int) []Call {
	if limit <= 0 {
		limit = DefaultLimit
	}
	var listed state.Kind
	namespaces := map[string]bool{}
	wide := false
	for _, l := range req.Lists {
		listed |= l.Kind
		if l.Kind&kinds.Namespaced == 0 {
			continue
		}
		if l.Namespace == "" {
			wide = true
		}
		namespaces[l.Namespace] = true
	}
	nsListed := listed & kinds.Namespaced
	// Namespaced kinds are listed in the same namespaces, so that one
	// namespace scope (state.State.Namespaces) describes all of them.
	covered := func(r state.Ref) bool {
		if r.Kind&kinds.Namespaced == 0 {
			return listed.Has(r.Kind)
		}
		return nsListed.Has(r.Kind) && (wide || namespaces[r.Namespace])
	}
	gets := map[state.Ref]bool{}
	cost := map[state.Kind]int{}
	for _, g := range req.Gets {
		if covered(g) || gets[g] {
			continue
		}
		gets[g] = true
		cost[g.Kind]++
	}
	var getsOnly state.Kind
	for _, info := range kinds.All {
		k := info.Kind
		if !info.Namespaced {
			continue
		}
		n := cost[k]
		if nsListed.Has(k) {
			n += len(namespaces)
		} else if n > 0 {
			getsOnly |= k
		}
		if n > limit {
			wide = true
		}
	}

	var calls []Call
	for _, info := range kinds.All {
		k := info.Kind
		switch {
		case !info.Namespaced && (listed.Has(k) || cost[k] > limit):
			calls = append(calls, Call{Verb: List, Kind: k})
		case info.Namespaced && wide && (nsListed | getsOnly).Has(k):
			calls = append(calls, Call{Verb: List, Kind: k})
		case info.Namespaced && nsListed.Has(k):
			for _, ns := range sortedKeys(namespaces) {
				calls = append(calls, Call{Verb: List, Kind: k, Namespace: ns})
			}
		}
	}
	var refs []state.Ref
	for g := range gets {
		refs = append(refs, g)
	}
	sortRefs(refs)
	for _, g := range refs {
		if coveredBy(calls, g) {
			continue
		}
		calls = append(calls, Call{Verb: Get, Kind: g.Kind, Namespace: g.Namespace, Name: g.Name})
	}
	return calls
}

// coveredBy reports whether a list among calls answers the get of r.
func coveredBy(calls []Call, r state.Ref) bool {
	for _, c := range calls {
		if c.Verb == List && c.Kind == r.Kind && (c.Namespace == "" || c.Namespace == r.Namespace) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortRefs(rs []state.Ref) {
	slices.SortFunc(rs, func(a, b state.Ref) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}
