package clusterread

import (
	"context"
	"sync"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/internal/diskscope"
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
// should retry, not plan on a partial view. It is ReadWith without
// discovery.
func Read(ctx context.Context, src Source, req state.Request, limit int) (*state.State, error) {
	st, _, err := ReadWith(ctx, src, req, Options{Limit: limit})
	return st, err
}

// Options are how ReadWith reads.
type Options struct {
	// Limit is Calls' limit; 0 means DefaultLimit.
	Limit int
	// Served, when set, is what discovery says the server serves (Discover,
	// Discovered.Kinds): a kind it does not serve is unknown without a call,
	// and a 404 on a kind it serves is a failed read, never "not served"
	// (a kind is not served only when discovery says so).
	// Nil is a reader without discovery: a 404 on a list, and a RESTMapper's
	// no-match, are the kind not being served.
	Served *Served
	// Parallel is how many calls are in flight at once; under 2, one at a
	// time. What is read does not depend on it.
	Parallel int
	// PageSize is how many objects one request of Source's lists brings;
	// 0 is a source whose list is one request whatever its length. Set, a
	// list of every PersistentVolume that Calls makes only for the volumes
	// of claims asked for by name is priced once the claims are read: the
	// volumes are read by name instead when they are no more than Limit,
	// or than the pages of such a list (every bound claim listed has a
	// volume), so that a plan of a few goldens does not list the volumes of
	// 100,000 disks.
	PageSize int
}

// ReadWith is Read with options, and says why each kind it left unknown is
// (Unread), in the order of the calls (Calls), the volumes read by name
// for a claim last: one per kind, cause and namespace.
func ReadWith(ctx context.Context, src Source, req state.Request, opts Options) (*state.State, []Unread, error) {
	st := &state.State{}
	var (
		unserved state.Kind                         // kinds the server does not serve
		wideOK   state.Kind                         // kinds listed in full
		nsOK     = map[state.Kind]map[string]bool{} // namespaced kinds listed in a namespace
		nsTried  = map[string]bool{}                // namespaces a namespaced kind was listed in
		gotRefs  = map[state.Ref]bool{}
		volumes  []state.Ref // volumes read by name for a claim
		unread   unreadSet
		narrow   = narrowed{}
	)
	discovered := opts.Served != nil
	calls := Calls(req, opts.Limit)
	if discovered {
		for _, c := range calls {
			if !opts.Served.Kinds.Has(c.Kind) && !unserved.Has(c.Kind) {
				unserved |= c.Kind
				unread.add(Unread{Kind: c.Kind, Cause: NotServed, Detail: opts.Served.why[c.Kind]})
			}
		}
	}
	// The volumes of claims are read once the claims are; so is a list of
	// them held back to be priced.
	var first, claimVolumes []Call
	var volumeList *Call
	for _, c := range calls {
		switch {
		case unserved.Has(c.Kind):
		case c.Verb == Get && c.Kind == state.PersistentVolume && c.Namespace != "":
			claimVolumes = append(claimVolumes, c)
		case c.Verb == List && c.Kind == state.PersistentVolume && opts.PageSize > 0 && onlyClaimVolumes(req):
			volumeList = &c
		default:
			first = append(first, c)
		}
	}

	// record takes in what call c read into part, or why it did not.
	record := func(c Call, part *state.State, err error) error {
		appendState(st, part)
		switch classify(c, err, discovered) {
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
			unread.add(Unread{Kind: c.Kind, Cause: NotServed})
		case refused:
			unread.add(refusedRead(c, err))
		default:
			return &ReadError{Verb: c.Verb, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Err: err}
		}
		return nil
	}
	type result struct {
		part     *state.State
		narrowed bool
		err      error
	}
	// The calls of one kind are made in turn, and those after one that
	// finds the kind not served are not made; kinds are read side by side.
	results := make([]result, len(first))
	var byKind [][]int
	group := map[state.Kind]int{}
	for i, c := range first {
		g, ok := group[c.Kind]
		if !ok {
			g = len(byKind)
			group[c.Kind] = g
			byKind = append(byKind, nil)
		}
		byKind[g] = append(byKind[g], i)
	}
	// The first read that fails stops the others: it is the error.
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	var failure struct {
		sync.Once
		err error
	}
	inParallel(len(byKind), opts.Parallel, func(g int) {
		for _, i := range byKind[g] {
			if readCtx.Err() != nil {
				return
			}
			c, part := first[i], &state.State{}
			var err error
			narrowedOK := false
			if c.Verb == List {
				narrowedOK, err = listDisks(readCtx, src, req, c, part)
				if !narrowedOK {
					err = src.List(readCtx, c.Kind, c.Namespace, part)
				}
			} else {
				err = src.Get(readCtx, c.Kind, c.Namespace, c.Name, part)
			}
			results[i] = result{part, narrowedOK, err}
			switch classify(c, err, discovered) {
			case notServed:
				return
			case failed:
				failure.Do(func() {
					failure.err = &ReadError{Verb: c.Verb, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Err: err}
					stop()
				})
				return
			}
		}
	})
	if failure.err != nil {
		return nil, nil, failure.err
	}
	for i, c := range first {
		if unserved.Has(c.Kind) {
			continue // an earlier call found the kind not served
		}
		r := results[i]
		if c.Verb == List && c.Namespace != "" {
			nsTried[c.Namespace] = true
		}
		if r.narrowed && r.err == nil {
			narrow[c.Namespace] |= c.Kind
		}
		if err := record(c, r.part, r.err); err != nil {
			return nil, nil, err
		}
	}

	if volumeList != nil {
		if wanted := claimsOf(req); volumesByName(st, wideOK, wanted, opts) {
			claimVolumes = wanted
		} else {
			part := &state.State{}
			if err := record(*volumeList, part, src.List(ctx, state.PersistentVolume, "", part)); err != nil {
				return nil, nil, err
			}
		}
	}
	// The volume each claim is bound to, by name.
	type volumeRead struct {
		claimRead bool   // the claim was read: its volume is known
		volume    string // "" for none: the claim is absent or unbound
		part      *state.State
		err       error
	}
	bound := boundVolumes(st, claimVolumes)
	reads := make([]volumeRead, len(claimVolumes))
	for i, c := range claimVolumes {
		claim := state.Ref{Kind: state.PersistentVolumeClaim, Namespace: c.Namespace, Name: c.Name}
		reads[i].claimRead = gotRefs[claim] || wideOK.Has(state.PersistentVolumeClaim) || nsOK[state.PersistentVolumeClaim][c.Namespace]
		if reads[i].claimRead {
			reads[i].volume = bound[claim]
		}
	}
	inParallel(len(claimVolumes), opts.Parallel, func(i int) {
		if r := &reads[i]; r.volume != "" {
			r.part = &state.State{}
			r.err = src.Get(ctx, state.PersistentVolume, "", r.volume, r.part)
		}
	})
	for i, c := range claimVolumes {
		if unserved.Has(c.Kind) {
			continue
		}
		r := reads[i]
		if r.part != nil {
			appendState(st, r.part)
		}
		switch classify(c, r.err, discovered) {
		case read, absent:
			if r.claimRead {
				gotRefs[state.Ref{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name}] = true
				if r.volume != "" {
					volumes = append(volumes, state.Ref{Kind: state.PersistentVolume, Name: r.volume})
				}
			}
		case notServed:
			unserved |= c.Kind
			unread.add(Unread{Kind: c.Kind, Cause: NotServed})
		case refused:
			unread.add(refusedRead(Call{Verb: Get, Kind: c.Kind, Name: r.volume}, r.err))
		default:
			return nil, nil, &ReadError{Verb: c.Verb, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Err: r.err}
		}
	}

	if err := narrow.counterparts(ctx, src, st, discovered); err != nil {
		return nil, nil, err
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
	st.Objects = append(st.Objects, volumes...)
	kinds.Normalize(st)
	return st, unread.list, nil
}

// listDisks lists, for a list of a namespace's disks that req keeps to
// some pools' disks, those disks alone, when src can: ok is false when it
// cannot, and the namespace is to be listed whole.
func listDisks(ctx context.Context, src Source, req state.Request, c Call, st *state.State) (ok bool, err error) {
	ds, can := src.(DiskSource)
	if !can || c.Namespace == "" || !diskKinds.Has(c.Kind) {
		return false, nil
	}
	pools := diskscope.Pools(req, c.Namespace)
	if pools == nil {
		return false, nil
	}
	return ds.ListDisks(ctx, c.Kind, c.Namespace, pools, st)
}

// onlyClaimVolumes reports whether req asks for PersistentVolumes only as
// the volumes of claims it names: no list of them, no volume by its own
// name.
func onlyClaimVolumes(req state.Request) bool {
	for _, l := range req.Lists {
		if l.Kind == state.PersistentVolume {
			return false
		}
	}
	for _, g := range req.Gets {
		if g.Kind == state.PersistentVolume && g.Namespace == "" {
			return false
		}
	}
	return true
}

// claimsOf is a get of the volume of each claim req names for one, in
// Calls' order.
func claimsOf(req state.Request) []Call {
	var refs []state.Ref
	seen := map[state.Ref]bool{}
	for _, g := range req.Gets {
		if g.Kind == state.PersistentVolume && !seen[g] {
			seen[g] = true
			refs = append(refs, g)
		}
	}
	sortRefs(refs)
	calls := make([]Call, len(refs))
	for i, r := range refs {
		calls[i] = Call{Verb: Get, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	}
	return calls
}

// volumesByName reports whether the volumes the claims of gets are bound
// to are read by name rather than listed (Options.PageSize): the claims
// were listed cluster-wide, and their volumes are no more than Limit or
// than the pages a list of every bound claim's volume takes.
func volumesByName(st *state.State, wideOK state.Kind, gets []Call, opts Options) bool {
	if !wideOK.Has(state.PersistentVolumeClaim) {
		return false
	}
	names := map[string]bool{}
	for _, v := range boundVolumes(st, gets) {
		names[v] = true
	}
	pages := 0
	for i := range st.PersistentVolumeClaims {
		if st.PersistentVolumeClaims[i].Spec.VolumeName != "" {
			pages++
		}
	}
	pages = (pages + opts.PageSize - 1) / opts.PageSize
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	return len(names) <= max(limit, pages)
}

// boundVolumes is the volume each claim that gets names is bound to,
// among the claims read into st; an unbound claim is absent.
func boundVolumes(st *state.State, gets []Call) map[state.Ref]string {
	wanted := map[state.Ref]bool{}
	for _, c := range gets {
		wanted[state.Ref{Kind: state.PersistentVolumeClaim, Namespace: c.Namespace, Name: c.Name}] = true
	}
	out := map[state.Ref]string{}
	for i := range st.PersistentVolumeClaims {
		p := &st.PersistentVolumeClaims[i]
		if r := (state.Ref{Kind: state.PersistentVolumeClaim, Namespace: p.Namespace, Name: p.Name}); wanted[r] && p.Spec.VolumeName != "" {
			out[r] = p.Spec.VolumeName
		}
	}
	return out
}

func everywhere(observed, wideOK state.Kind, nsOK map[state.Kind]map[string]bool, ns string) bool {
	for _, k := range observed.Each() {
		if !wideOK.Has(k) && !nsOK[k][ns] {
			return false
		}
	}
	return true
}
