package invariants_test

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/equality"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// finding is a refusal or a warning as the properties compare it: its
// reason and its field (for StateUnverified, the kind it names).
type finding string

func findingOf(reason guard.Reason, fld, value string) finding {
	if reason == guard.StateUnverified {
		fld = value
	}
	return finding(string(reason) + "@" + fld)
}

func refusals(err error) []finding {
	var out []finding
	for _, r := range guard.Refusals(err) {
		out = append(out, findingOf(r.Reason, r.Field, ""))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func warnings(ws []guard.Warning) []finding {
	var out []finding
	for _, w := range ws {
		out = append(out, findingOf(w.Reason, w.Field, w.Value))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// minus is the multiset a without b.
func minus(a, b []finding) []finding {
	left := map[finding]int{}
	for _, f := range b {
		left[f]++
	}
	var out []finding
	for _, f := range a {
		if left[f] > 0 {
			left[f]--
			continue
		}
		out = append(out, f)
	}
	return out
}

func hasReason(ws []guard.Warning, r guard.Reason) bool {
	for _, w := range ws {
		if w.Reason == r {
			return true
		}
	}
	return false
}

// unverified lists the kinds the StateUnverified warnings name.
func unverified(ws []guard.Warning) state.Kind {
	var k state.Kind
	for _, w := range ws {
		if w.Reason == guard.StateUnverified {
			kk, _ := state.KindByName(w.Value)
			k |= kk
		}
	}
	return k
}

// sameResult compares two plans: quantities as quantities, refusals by
// everything they carry. It returns "" when they are the same.
func sameResult(a, b plan.Result) string {
	switch {
	case a.Namespace != b.Namespace || a.Name != b.Name:
		return fmt.Sprintf("pool %s/%s against %s/%s", a.Namespace, a.Name, b.Namespace, b.Name)
	case a.Outcome != b.Outcome || a.Source != b.Source || a.Golden != b.Golden:
		return fmt.Sprintf("outcome %s/%s/%s against %s/%s/%s", a.Outcome, a.Source, a.Golden, b.Outcome, b.Source, b.Golden)
	case a.DiskSize != b.DiskSize || a.InstallerImage != b.InstallerImage || a.StorageClass != b.StorageClass:
		return fmt.Sprintf("%q %q %v against %q %q %v", a.DiskSize, a.InstallerImage, a.StorageClass, b.DiskSize, b.InstallerImage, b.StorageClass)
	case !equality.Semantic.DeepEqual(a.Disk, b.Disk):
		return fmt.Sprintf("disk %+v against %+v", a.Disk, b.Disk)
	case !equality.Semantic.DeepEqual(a.Warnings, b.Warnings):
		return fmt.Sprintf("warnings %v against %v", a.Warnings, b.Warnings)
	case !equality.Semantic.DeepEqual(refusalValues(a.Err), refusalValues(b.Err)):
		return fmt.Sprintf("refusals %v against %v", a.Err, b.Err)
	}
	return ""
}

func refusalValues(err error) []guard.Refusal {
	var out []guard.Refusal
	for _, r := range guard.Refusals(err) {
		out = append(out, *r)
	}
	return out
}

// catalogView is what a compiled catalog exposes, refusals opened, so that
// two catalogs compare with reflect.DeepEqual (an aggregate error holds a
// func, which never compares equal).
type catalogView struct {
	Enabled bool
	Values  catalog.Values
	Entries []entryView
	Err     []guard.Refusal
}

type entryView struct {
	Entry  catalog.Entry
	Err    []guard.Refusal
	Lookup int
}

func viewCatalog(c *catalog.Catalog) catalogView {
	v := catalogView{Enabled: c.Enabled, Values: plantest.CopyValues(c.Values), Err: refusalValues(c.Err())}
	for i := range c.Entries {
		e := c.Entries[i]
		ev := entryView{Err: refusalValues(e.Err()), Lookup: -1}
		if found, ok := c.Lookup(e.Flavor); ok {
			ev.Lookup = found.Index
		}
		e.Size = e.Size.DeepCopy()
		ev.Entry = withoutErr(e)
		v.Entries = append(v.Entries, ev)
	}
	return v
}

// withoutErr is an entry with its unexported error left out (entryView
// holds it opened).
func withoutErr(e catalog.Entry) catalog.Entry {
	return catalog.Entry{Index: e.Index, Flavor: e.Flavor, Golden: e.Golden, ImageFactoryURL: e.ImageFactoryURL,
		Storage: e.Storage, StorageClass: e.StorageClass, URL: e.URL, Size: e.Size,
		OwnURL: e.OwnURL, OwnStorage: e.OwnStorage, OwnClass: e.OwnClass}
}

// poolSubject is how refusals and warnings name a pool.
func poolSubject(p plan.Pool) string { return "pool " + p.Namespace + "/" + p.Name }

// wellFormedScenario draws a scenario whose pools and catalog are
// well-formed and whose cluster was observed in full, consistent: what
// decides its plans is the cluster, which the properties that vary the
// cluster need.
func wellFormedScenario(t *rapid.T) plantest.Scenario {
	v := plantest.Vocabularies().Draw(t, "vocabulary")
	v.Malformed = false
	s := plantest.Scenario{Vocabulary: v}
	s.Pools = rapid.SliceOfNDistinct(v.Pool(), 1, 4, func(p plan.Pool) [2]string { return [2]string{p.Namespace, p.Name} }).Draw(t, "pools")
	s.Catalog = v.CatalogValues().Draw(t, "catalog")
	s.State = v.State(s.Pools, s.Catalog, plantest.Options{FullyObserved: true}).Draw(t, "state")
	return s
}
