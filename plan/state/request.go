package state

import "sort"

// Request is what a plan needs read: objects by name and kinds listed, in a
// namespace or cluster-wide. Adapters read exactly these.
type Request struct {
	// Gets are objects read by name. A Get of a PersistentVolume names
	// the claim whose bound volume is read (Namespace and Name are the
	// PVC's): which volume that is, is known only once the claim is read.
	Gets []Ref
	// Lists are kinds listed; Namespace "" lists cluster-wide (and is the
	// only form for cluster-scoped kinds).
	Lists []Ref
}

// Merge adds o to r, dropping repeats, and returns r. A cluster-wide list
// covers the namespaced lists and the gets of its kind.
func (r Request) Merge(o Request) Request {
	r.Gets = append(append([]Ref(nil), r.Gets...), o.Gets...)
	r.Lists = append(append([]Ref(nil), r.Lists...), o.Lists...)
	return r.normalize()
}

func (r Request) normalize() Request {
	wide := Kind(0)
	lists := map[Ref]bool{}
	for _, l := range r.Lists {
		l.Name = ""
		if l.Namespace == "" {
			wide |= l.Kind
		}
		lists[l] = true
	}
	out := Request{}
	for l := range lists {
		if l.Namespace != "" && wide.Has(l.Kind) {
			continue
		}
		out.Lists = append(out.Lists, l)
	}
	seen := map[Ref]bool{}
	for _, g := range r.Gets {
		if seen[g] || wide.Has(g.Kind) || lists[Ref{Kind: g.Kind, Namespace: g.Namespace}] {
			continue
		}
		seen[g] = true
		out.Gets = append(out.Gets, g)
	}
	sortRefs(out.Gets)
	sortRefs(out.Lists)
	return out
}

func sortRefs(rs []Ref) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
}
