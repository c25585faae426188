package state

import (
	"slices"
	"sort"

	"github.com/cozystack/kubernetes-worker-image/internal/diskscope"
)

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

	// disks keeps, per namespace, the lists of DataVolumes and PVCs there
	// to the disks of these pools (sorted CAPI names): a pool's plan
	// reads nothing else of its namespace. A reader may list the
	// namespace whole instead.
	disks map[string][]string
}

func init() {
	diskscope.Narrow = func(req any, namespace, pool string) any {
		r := req.(Request)
		disks := make(map[string][]string, len(r.disks)+1)
		for ns, pools := range r.disks {
			disks[ns] = pools
		}
		pools := append(slices.Clone(disks[namespace]), pool)
		slices.Sort(pools)
		disks[namespace] = slices.Compact(pools)
		r.disks = disks
		return r.normalize()
	}
	diskscope.Pools = func(req any, namespace string) []string { return slices.Clone(req.(Request).disks[namespace]) }
}

// Merge adds o to r, dropping repeats, and returns r. A cluster-wide list
// covers the namespaced lists and the gets of its kind. A namespace whose
// disks one request needs only for some pools (plan.Needs) is read whole
// when the other needs it whole.
func (r Request) Merge(o Request) Request {
	disks := mergeDisks(r, o)
	r.Gets = append(append([]Ref(nil), r.Gets...), o.Gets...)
	r.Lists = append(append([]Ref(nil), r.Lists...), o.Lists...)
	r.disks = disks
	return r.normalize()
}

// diskKinds are the kinds of a worker disk.
const diskKinds = DataVolume | PersistentVolumeClaim

// mergeDisks keeps a namespace's disk lists narrowed to some pools' disks
// only where neither request lists the namespace's disks whole: the union
// of their pools.
func mergeDisks(a, b Request) map[string][]string {
	var out map[string][]string
	for _, x := range [2]Request{a, b} {
		for ns, pools := range x.disks {
			if a.listsWhole(ns) || b.listsWhole(ns) {
				continue
			}
			if out == nil {
				out = map[string][]string{}
			}
			out[ns] = append(out[ns], pools...)
		}
	}
	for ns, pools := range out {
		slices.Sort(pools)
		out[ns] = slices.Compact(pools)
	}
	return out
}

// listsWhole reports whether r lists disks of namespace not narrowed to
// pools.
func (r Request) listsWhole(namespace string) bool {
	if r.disks[namespace] != nil {
		return false
	}
	for _, l := range r.Lists {
		if diskKinds.Has(l.Kind) && l.Namespace == namespace {
			return true
		}
	}
	return false
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
	// A namespace stays narrowed while its disks are listed, not
	// cluster-wide, and none of them is asked for by name: a get there is
	// answered by the namespace's list, which must then hold everything.
	for ns, pools := range r.disks {
		listed := lists[Ref{Kind: DataVolume, Namespace: ns}] || lists[Ref{Kind: PersistentVolumeClaim, Namespace: ns}]
		if !listed || wide&diskKinds != 0 || slices.ContainsFunc(r.Gets, func(g Ref) bool { return diskKinds.Has(g.Kind) && g.Namespace == ns }) {
			continue
		}
		if out.disks == nil {
			out.disks = map[string][]string{}
		}
		out.disks[ns] = pools
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
