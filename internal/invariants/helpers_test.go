package invariants_test

import (
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"k8s.io/apimachinery/pkg/api/equality"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// finding is a refusal or a warning as the properties compare it: its
// reason and its field (for StateUnverified, the kind it names).
type finding = fixtures.Finding

func findingOf(reason guard.Reason, fld, kind string) finding {
	if reason == guard.StateUnverified {
		fld = kind
	}
	return finding{Reason: reason, Field: fld}
}

// refusals lists the refusals err holds, opened as a caller opens them.
func refusals(err error) []finding {
	return sortFindings(fixtures.Refused(err))
}

func warnings(ws guard.Warnings) []finding {
	var out []finding
	for _, w := range ws {
		out = append(out, findingOf(w.Reason, w.Field, w.Kind))
	}
	return sortFindings(out)
}

func sortFindings(fs []finding) []finding {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Reason != fs[j].Reason {
			return fs[i].Reason < fs[j].Reason
		}
		return fs[i].Field < fs[j].Field
	})
	return fs
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

func hasReason(ws guard.Warnings, r guard.Reason) bool {
	for _, w := range ws {
		if w.Reason == r {
			return true
		}
	}
	return false
}

// unverified lists the kinds the StateUnverified warnings name.
func unverified(ws guard.Warnings) state.Kind {
	var k state.Kind
	for _, w := range ws {
		if w.Reason == guard.StateUnverified {
			kk, _ := state.KindByName(w.Kind)
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
	case !equality.Semantic.DeepEqual(refusalValues(a.Refusals), refusalValues(b.Refusals)):
		return fmt.Sprintf("refusals %v against %v", a.Refusals, b.Refusals)
	}
	return ""
}

// sameError reports whether err is the error of the refusals rs, as Plan
// returns it: nil for none, else those refusals. (Two errors holding
// guard.Refusals, a slice, cannot be compared with ==.)
func sameError(err error, rs guard.Refusals) bool {
	if err == nil || len(rs) == 0 {
		return (err == nil) == (len(rs) == 0)
	}
	got := fixtures.Refusals(err)
	return len(got) > 0 && equality.Semantic.DeepEqual(refusalValues(got), refusalValues(rs))
}

func refusalValues(rs guard.Refusals) []guard.Refusal {
	var out []guard.Refusal
	for _, r := range rs {
		out = append(out, *r)
	}
	return out
}

// catalogView is what a compiled catalog exposes through its accessors,
// refusals copied out, so that two catalogs compare with reflect.DeepEqual.
type catalogView struct {
	Enabled         bool
	Values          catalog.Values
	Entries         []entryView
	Refusals        []guard.Refusal
	Unreadable      []guard.Refusal
	Warnings        guard.Warnings
	UnobservedKinds state.Kind
}

type entryView struct {
	Entry    catalog.Entry
	Refusals []guard.Refusal
	Lookup   int
}

func viewCatalog(c *catalog.Catalog) catalogView {
	v := catalogView{Enabled: c.Enabled(), Values: plantest.CopyValues(c.Values()), Refusals: refusalValues(c.Refusals()),
		Unreadable: refusalValues(c.Unreadable()), Warnings: c.Warnings(), UnobservedKinds: c.UnobservedKinds()}
	for e := range c.Entries() {
		ev := entryView{Refusals: refusalValues(e.Refusals()), Lookup: -1}
		if found, ok := c.Lookup(e.Flavor); ok {
			ev.Lookup = found.Index
		}
		e.Size = e.Size.DeepCopy()
		ev.Entry = exportedEntry(e)
		v.Entries = append(v.Entries, ev)
	}
	return v
}

// exportedEntry is an entry's exported fields (entryView holds its
// refusals, which it keeps unexported, copied out).
func exportedEntry(e catalog.Entry) catalog.Entry {
	return catalog.Entry{Index: e.Index, Flavor: e.Flavor, Golden: e.Golden, ImageFactoryURL: e.ImageFactoryURL,
		Storage: e.Storage, StorageClass: e.StorageClass, URL: e.URL, Size: e.Size}
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

// renderingCluster is an observed cluster on which CDI renders a golden on
// any class of the vocabulary, and on the charts' "replicated": each class
// (the first the default) with its CSIDriver, a StorageProfile whose first
// claim property set is ReadWriteMany Block, and CDI's CDIConfig.
func renderingCluster(v plantest.Vocabulary) *state.State {
	classes := v.Classes
	if !slices.Contains(classes, chartdefaults.StorageClass) {
		classes = append(slices.Clone(classes), chartdefaults.StorageClass)
	}
	objs := []client.Object{fixtures.CDIConfig(fixtures.DefaultOverhead, classes...), fixtures.CDI(nil)}
	for i, c := range classes {
		provisioner := "replicated.csi.example.com"
		if i < len(v.Provisioners) {
			provisioner = v.Provisioners[i]
		}
		b := fixtures.StorageClass(c).Provisioner(provisioner).Expansion(true)
		if i == 0 {
			b.Default()
		}
		objs = append(objs, b.Obj(), fixtures.Driver(provisioner),
			fixtures.Profile(c, provisioner, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone))
	}
	return fixtures.State(state.AllKinds, objs...)
}
