package webhook

import (
	"encoding/json"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// An update is never refused for a state it did not change: a pool that
// runs must stay editable (its replicas, its kubelet settings) while its
// golden imports, or while the cluster refuses its disk for a reason of
// its own (a StorageProfile moved to copy, a default class moved). Such an
// update is admitted when it leaves the refused thing as it was: the pool's
// disk-system, or the catalog's goldens; the refusals come back as
// warnings. An update that changes the disk is judged as a create.

// sameDisk reports whether two pools write the same disk-system: the
// planner's inputs to it are the same (the pool's name and namespace and
// its decoded values, the installer repository aside, which is not the
// disk's), or, planned against the catalog without the cluster, both write
// the same disk from the same source (an osImage.builtin that names the
// default flavor and one that leaves it to talos). Without the cluster only
// an empty class is left to resolve, and it resolves the same way for both
// against the same state.
func sameDisk(old, cur plan.Pool, cat *catalog.Catalog) bool {
	if old.Namespace != cur.Namespace || old.Name != cur.Name {
		return false
	}
	if diskInputs(old.Spec) == diskInputs(cur.Spec) {
		return true
	}
	a, errOld := plan.Plan(old, cat, nil)
	b, errCur := plan.Plan(cur, cat, nil)
	return errOld == nil && errCur == nil &&
		a.Source == b.Source && a.Golden == b.Golden && a.DiskSize == b.DiskSize &&
		equality.Semantic.DeepEqual(a.Disk, b.Disk)
}

// diskInputs is the part of a decoded spec the disk is planned from, as
// text to compare.
func diskInputs(s plan.PoolSpec) string {
	s.Talos.InstallerRepository = ""
	text, err := json.Marshal(s)
	if err != nil {
		// A PoolSpec is strings and pointers to strings: it always marshals.
		panic(err)
	}
	return string(text)
}

// entryPath is the images[i] that starts an entry's field.
var entryPath = regexp.MustCompile(`^images\[(\d+)\]`)

// standing reports whether every refusal of a catalog's render stands
// from before the update: none is the values' own (a values refusal is
// the operator's to fix, not a state), and each is one the old values'
// render makes too, about an entry the update left as it was (the same
// flavor with the same factory, size and class, wherever it moved in
// images[]), or, outside any entry, the very same refusal.
func standing(rs guard.Refusals, cur, old *catalog.Catalog, oldRender guard.Refusals) bool {
	own := map[string]bool{}
	for _, r := range cur.Refusals() {
		own[findingKey(r.Reason, r.Field, r.Detail)] = true
	}
	before := map[string]bool{}
	for _, r := range oldRender {
		before[findingKey(r.Reason, r.Field, r.Detail)] = true
		before[findingKey(r.Reason, r.Field, "")] = true
	}
	entries := map[int]catalog.Entry{}
	for e := range cur.Entries() {
		entries[e.Index] = e
	}
	for _, r := range rs {
		if r == nil {
			continue
		}
		if own[findingKey(r.Reason, r.Field, r.Detail)] {
			return false
		}
		m := entryPath.FindStringSubmatchIndex(r.Field)
		if m == nil {
			if !before[findingKey(r.Reason, r.Field, r.Detail)] {
				return false
			}
			continue
		}
		i, _ := strconv.Atoi(r.Field[m[2]:m[3]])
		e, ok := entries[i]
		if !ok {
			return false
		}
		was, ok := old.Lookup(e.Flavor)
		if !ok || !sameEntry(e, was) {
			return false
		}
		// The old render's refusal of that entry, at its old index.
		if !before[findingKey(r.Reason, "images["+strconv.Itoa(was.Index)+"]"+r.Field[m[1]:], "")] {
			return false
		}
	}
	return true
}

// sameEntry reports whether two entries render the same golden.
func sameEntry(a, b catalog.Entry) bool {
	return a.Flavor == b.Flavor && a.Golden == b.Golden && a.URL == b.URL &&
		a.ImageFactoryURL == b.ImageFactoryURL && a.Storage == b.Storage && a.StorageClass == b.StorageClass
}

func findingKey(reason guard.Reason, fld, detail string) string {
	return string(reason) + "\x00" + fld + "\x00" + detail
}
