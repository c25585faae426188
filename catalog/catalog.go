package catalog

import (
	"fmt"
	"iter"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Flavor is a (schematicID, version) pair: one golden. It marshals with
// the values' keys, {"schematicID","version"}.
type Flavor struct {
	SchematicID string `json:"schematicID"`
	Version     string `json:"version"`
}

// String reads "<schematicID>/<version>".
func (f Flavor) String() string { return f.SchematicID + "/" + f.Version }

// Entry is one catalog entry with the catalog's values folded in. Lookup
// and Entries hand out copies: a compiled catalog never changes.
type Entry struct {
	// Index is the entry's position in images[].
	Index int
	Flavor
	// Golden is the golden DataVolume's name ("" when the flavor is invalid).
	Golden string
	// ImageFactoryURL, Storage and StorageClass are resolved: the entry's
	// own value, else the catalog's.
	ImageFactoryURL string
	Storage         string
	StorageClass    string
	// URL is the image the golden imports.
	URL string
	// Size is Storage parsed (zero when Storage is invalid).
	Size resource.Quantity

	refusals guard.Refusals
}

// path is the entry's values path, images[i].
func (e Entry) path() *field.Path { return field.NewPath("images").Index(e.Index) }

// Refusals are the entry's own refusals (invalid fields, a duplicate), nil
// when it is valid. Refusals of the catalog's global fields that the entry
// inherits are included, at the global field.
func (e Entry) Refusals() guard.Refusals { return clone(e.refusals) }

// describe names the entry: "catalog entry images[2] (ce4c…/v1.13.6)".
func (e Entry) describe() string {
	return fmt.Sprintf("catalog entry %s (%s)", e.path(), e.Flavor)
}

// expected is what the entry says its golden is.
func (e *Entry) expected() *golden.Expected {
	return &golden.Expected{Class: e.StorageClass, Request: e.Size, URL: e.URL}
}

// Catalog is compiled catalog values: validated once, looked up by flavor.
// It never changes after Compile and is safe to share between goroutines;
// its accessors hand out copies.
type Catalog struct {
	enabled bool
	// unobserved is set on a catalog read back from a cluster whose goldens
	// were not all observed.
	unobserved state.Kind
	values     Values
	entries    []Entry
	byKey      map[Flavor]int
	refusals   guard.Refusals
	// unreadable are the refusals of values the chart cannot read.
	unreadable guard.Refusals
	warnings   guard.Warnings
}

// Compile validates v and indexes its entries. It never fails: refusals are
// kept on the catalog (Refusals) and on each entry (Entry.Refusals).
func Compile(v Values) *Catalog {
	v = v.clone()
	c := &Catalog{enabled: v.Enabled, values: v, entries: make([]Entry, len(v.Images)), byKey: make(map[Flavor]int, len(v.Images))}
	urlErrs := naming.ValidateImageFactoryURL(v.ImageFactoryURL, field.NewPath("imageFactoryURL"))
	globalSize, sizeErrs := size.Parse(v.Storage, field.NewPath("storage"))
	c.unreadable, c.warnings = clone(v.refusals), append(guard.Warnings(nil), v.warnings...)
	all := append(clone(c.unreadable), urlErrs...)
	all = append(all, sizeErrs...)
	for i, img := range v.Images {
		e := &c.entries[i]
		e.Index = i
		e.Flavor = Flavor{img.SchematicID, img.Version}
		// own is what the entry answers for, in order: its own refusals
		// and those of the global values it inherits (which the catalog
		// lists once, at the global field).
		own := entryRefusals(c.unreadable, e.path())
		add := func(rs guard.Refusals) {
			for _, r := range rs {
				r.Detail = e.describe() + ": " + r.Detail
				own = append(own, r)
				all = append(all, r)
			}
		}
		p := e.path()
		name, errs := naming.GoldenName(img.SchematicID, img.Version, p.Child("schematicID"), p.Child("version"))
		add(errs)
		e.Golden = name

		var ownURL, ownStorage bool
		e.ImageFactoryURL, ownURL = pick(img.ImageFactoryURL, v.ImageFactoryURL)
		if ownURL {
			add(naming.ValidateImageFactoryURL(e.ImageFactoryURL, p.Child("imageFactoryURL")))
		} else {
			own = append(own, urlErrs...)
		}
		e.URL = naming.ImageURL(e.ImageFactoryURL, img.SchematicID, img.Version)

		e.Storage, ownStorage = pick(img.Storage, v.Storage)
		if ownStorage {
			q, errs := size.Parse(e.Storage, p.Child("storage"))
			add(errs)
			e.Size = q
		} else {
			own = append(own, sizeErrs...)
			e.Size = globalSize
		}
		e.StorageClass, _ = pick(img.StorageClass, v.StorageClass)

		if j, dup := c.byKey[e.Flavor]; dup {
			dupErr := findings.NewRefusal(guard.DuplicateCatalogEntry, p, e.Flavor.String(),
				"%s: repeats images[%d]; a flavor has one golden, so remove one of the two entries", e.describe(), j)
			own = append(own, dupErr)
			all = append(all, dupErr)
		} else {
			c.byKey[e.Flavor] = i
		}
		e.refusals = own
	}
	for i, r := range all {
		cp := *r
		cp.Subject = subject
		all[i] = &cp
	}
	c.refusals = all
	return c
}

// entryRefusals are the refusals of rs at the entry's path or below it.
func entryRefusals(rs guard.Refusals, entry *field.Path) guard.Refusals {
	var out guard.Refusals
	p := entry.String()
	for _, r := range rs {
		if r.Field == p || strings.HasPrefix(r.Field, p+".") {
			out = append(out, r)
		}
	}
	return out
}

// clone copies refusals, so that no caller can change a compiled catalog's.
func clone(rs guard.Refusals) guard.Refusals {
	if len(rs) == 0 {
		return nil
	}
	out := make(guard.Refusals, len(rs))
	for i, r := range rs {
		cp := *r
		out[i] = &cp
	}
	return out
}

// pick is Helm's default: the entry's value unless empty.
func pick(own, global string) (string, bool) {
	if own != "" {
		return own, true
	}
	return global, false
}

// Enabled reports whether the catalog serves goldens; it is opt-in.
func (c *Catalog) Enabled() bool { return c.enabled }

// Values returns a copy of the values the catalog was compiled from.
func (c *Catalog) Values() Values { return c.values.clone() }

// Entries yields a copy of every entry, in images[] order.
func (c *Catalog) Entries() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		for _, e := range c.entries {
			if !yield(e) {
				return
			}
		}
	}
}

// Refusals returns every refusal of the catalog's values (without cluster
// state), nil when there are none. The catalog is validated even when
// disabled.
func (c *Catalog) Refusals() guard.Refusals { return clone(c.refusals) }

// Unreadable are the refusals of values the chart cannot read (a map where
// a string belongs), nil for values built in Go: such values serve no
// golden, so a pool that clones one is refused for them.
func (c *Catalog) Unreadable() guard.Refusals { return clone(c.unreadable) }

// Warnings are the warnings of the values themselves: a key the chart does
// not define (UnknownField).
func (c *Catalog) Warnings() guard.Warnings { return append(guard.Warnings(nil), c.warnings...) }

// UnobservedKinds is, for a catalog read back from a cluster (FromCluster),
// the kinds of goldens that were not all observed: a flavor missing from
// such a catalog may still exist, so its absence refuses nothing. It is 0
// for compiled values.
func (c *Catalog) UnobservedKinds() state.Kind { return c.unobserved }

// Lookup finds the entry of a flavor (the first, should two repeat it).
func (c *Catalog) Lookup(f Flavor) (Entry, bool) {
	i, ok := c.byKey[f]
	if !ok {
		return Entry{}, false
	}
	return c.entries[i], true
}

// lookupGolden finds the entry of a golden by its name.
func (c *Catalog) lookupGolden(name string) (Entry, bool) {
	id, v, ok := naming.ParseGoldenName(name)
	if !ok {
		return Entry{}, false
	}
	return c.Lookup(Flavor{id, v})
}
