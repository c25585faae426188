package catalog

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// wayOut is what to do instead of editing a golden: CDI refuses any change
// to a DataVolume's spec, and deleting the golden would break every pool
// that clones it.
const wayOut = "a DataVolume's spec cannot be patched in place; add a new (schematicID, version) entry, " +
	"move the pools onto it, then retire this one"

// unchanged compares an entry with its present golden, field by field, and
// refuses CatalogEntryImmutable for each field the entry changes. It reports
// whether the entry's values were proven equal to the golden's, which is when
// the live spec may be reproduced. A field the entry already gets a refusal
// for (an invalid URL or size) is not compared.
func (r *renderer) unchanged(e *Entry, g *golden.Golden) bool {
	invalid := map[guard.Reason]bool{}
	for _, f := range e.refusals {
		invalid[f.Reason] = true
	}
	same := true
	if g.DataVolume == nil && !stateindex.Of(r.snap).Covers(state.DataVolume, naming.GoldenNamespace, g.Name) {
		// Seen by its PVC while DataVolumes were not read: a DataVolume
		// may still exist with other values.
		r.unverified |= state.DataVolume
		same = false
	}
	if !invalid[guard.InvalidImageFactoryURL] {
		same = r.sameURL(e, g) && same
	}
	if !invalid[guard.InvalidQuantity] {
		same = r.sameSize(e, g) && same
	}
	return r.sameClass(e, g) && same
}

// sameURL compares source URLs canonically. A golden known by its PVC alone
// is compared only when the PVC records the URL CDI imported from.
func (r *renderer) sameURL(e *Entry, g *golden.Golden) bool {
	if (g.DataVolume == nil && g.URL == "") || naming.SameURL(e.URL, g.URL) {
		return true
	}
	r.refuse(e, g, "imageFactoryURL", e.ImageFactoryURL, "source URL", orNone(g.URL), e.URL)
	return false
}

// sameSize compares sizes as quantities (6Gi is 6144Mi). A golden known by
// its PVC alone is not compared: CDI may have inflated the PVC's request for
// filesystem overhead.
func (r *renderer) sameSize(e *Entry, g *golden.Golden) bool {
	if g.DataVolume == nil || e.Size.Cmp(g.Request) == 0 {
		return true
	}
	r.refuse(e, g, "storage", e.Storage, "size", quantity(g.Request), e.Storage)
	return false
}

// sameClass compares classes as CDI binds them. The golden's class is the
// one its spec names, else the one its PVC is bound on (frozen), else the
// cluster default; an entry's empty class resolves the same way, so moving
// the cluster default never turns an unchanged entry into an edit, and an
// entry that names the class a classless golden is bound on is no edit.
func (r *renderer) sameClass(e *Entry, g *golden.Golden) bool {
	if e.StorageClass == g.NamedClass {
		return true
	}
	in := storage.Input{BoundKnown: g.BoundKnown, Default: r.def.Name, DefaultKnown: r.def.Known}
	if g.ClaimClass != "" {
		in.Bound = []string{g.ClaimClass}
	}
	entryIn, goldenIn := in, in
	entryIn.Named, goldenIn.Named = e.StorageClass, g.NamedClass
	er, eerr := storage.Resolve(entryIn)
	gr, gerr := storage.Resolve(goldenIn)
	// Two named classes that differ are an edit whatever the cluster says.
	// An entry that names a class for a golden that names none is an edit
	// unless the golden's PVC is bound on that class: the default it once
	// followed proves nothing of where it sits now.
	if e.StorageClass != "" && g.NamedClass == "" {
		switch {
		case g.ClaimClass == e.StorageClass:
			return true
		case g.ClaimClass == "" && !g.BoundKnown:
			r.unverified |= state.PersistentVolumeClaim
			return false
		}
	} else if e.StorageClass == "" || g.NamedClass == "" {
		// The entry leaves its class to the cluster: it binds where the
		// golden's bound PVC is, else on the default.
		switch {
		case g.ClaimClass == "" && !g.BoundKnown:
			r.unverified |= state.PersistentVolumeClaim
			return false
		case errors.Is(eerr, storage.ErrDefaultUnknown) || errors.Is(gerr, storage.ErrDefaultUnknown):
			r.unverified |= state.StorageClass
			return false
		case er.Name == gr.Name:
			return true
		}
	}
	r.refuse(e, g, "storageClass", e.StorageClass, "class", describeClass(g.NamedClass, gr, gerr), describeClass(e.StorageClass, er, eerr))
	return false
}

// describeClass says how an empty class resolved, and nothing of a default
// when the class is named.
func describeClass(named string, res storage.Resolution, err error) string {
	switch {
	case named != "":
		return fmt.Sprintf("%q", named)
	case res.From == storage.Frozen:
		return fmt.Sprintf(`"" (bound on %q)`, res.Name)
	case errors.Is(err, storage.ErrNoDefault):
		return `"" (and the cluster has no default class)`
	}
	return fmt.Sprintf(`"" (the cluster default, %q)`, res.Name)
}

// refuse records one CatalogEntryImmutable at images[i].<child>.
func (r *renderer) refuse(e *Entry, g *golden.Golden, child string, bad any, what, old, new string) {
	r.col.Refuse(guard.CatalogEntryImmutable, e.path().Child(child), bad,
		"%s: golden %s/%s already exists with %s %s, and the entry now says %s; %s",
		e.describe(), naming.GoldenNamespace, g.Name, what, old, new, wayOut)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func quantity(q resource.Quantity) string {
	if q.IsZero() {
		return "(none)"
	}
	return q.String()
}
