package clusterread

import (
	"context"

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
}

// ReadWith is Read with options, and says why each kind it left unknown is
// (Unread), in the order the calls were made, one per kind, cause and
// namespace.
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
	for _, c := range calls {
		if unserved.Has(c.Kind) {
			continue
		}
		if c.Verb == Get && c.Kind == state.PersistentVolume && c.Namespace != "" {
			// The volume a claim is bound to: read once the claim is.
			ref, ok, err := readClaimVolume(ctx, src, c, st, gotRefs, wideOK, nsOK)
			switch classify(c, err, discovered) {
			case read, absent:
				if ok {
					gotRefs[state.Ref{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name}] = true
					if ref.Name != "" {
						volumes = append(volumes, ref)
					}
				}
			case notServed:
				unserved |= c.Kind
				unread.add(Unread{Kind: c.Kind, Cause: NotServed})
			case refused:
				unread.add(refusedRead(Call{Verb: Get, Kind: c.Kind, Name: ref.Name}, err))
			default:
				return nil, nil, &ReadError{Verb: c.Verb, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Err: err}
			}
			continue
		}
		var err error
		if c.Verb == List {
			var narrowedOK bool
			narrowedOK, err = listDisks(ctx, src, req, c, st)
			if !narrowedOK {
				err = src.List(ctx, c.Kind, c.Namespace, st)
			} else if err == nil {
				narrow[c.Namespace] |= c.Kind
			}
		} else {
			err = src.Get(ctx, c.Kind, c.Namespace, c.Name, st)
		}
		if c.Verb == List && c.Namespace != "" {
			nsTried[c.Namespace] = true
		}
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
			return nil, nil, &ReadError{Verb: c.Verb, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name, Err: err}
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

// readClaimVolume reads the PersistentVolume the claim c names is bound to.
// It reports ok when the claim was read (so that its volume is known: none
// when it is absent or unbound) and the volume's ref when one was read by
// name, found or not.
func readClaimVolume(ctx context.Context, src Source, c Call, st *state.State,
	gotRefs map[state.Ref]bool, wideOK state.Kind, nsOK map[state.Kind]map[string]bool) (state.Ref, bool, error) {
	claim := state.Ref{Kind: state.PersistentVolumeClaim, Namespace: c.Namespace, Name: c.Name}
	if !gotRefs[claim] && !wideOK.Has(state.PersistentVolumeClaim) && !nsOK[state.PersistentVolumeClaim][c.Namespace] {
		return state.Ref{}, false, nil // the claim was not read: its volume is unknown
	}
	volume := ""
	for i := range st.PersistentVolumeClaims {
		if p := &st.PersistentVolumeClaims[i]; p.Namespace == c.Namespace && p.Name == c.Name {
			volume = p.Spec.VolumeName
		}
	}
	if volume == "" {
		return state.Ref{}, true, nil
	}
	err := src.Get(ctx, state.PersistentVolume, "", volume, st)
	return state.Ref{Kind: state.PersistentVolume, Name: volume}, true, err
}

func everywhere(observed, wideOK state.Kind, nsOK map[state.Kind]map[string]bool, ns string) bool {
	for _, k := range observed.Each() {
		if !wideOK.Has(k) && !nsOK[k][ns] {
			return false
		}
	}
	return true
}
