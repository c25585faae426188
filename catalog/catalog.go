package catalog

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Flavor is a (schematicID, version) pair: one golden.
type Flavor struct{ SchematicID, Version string }

// String reads "<schematicID>/<version>".
func (f Flavor) String() string { return f.SchematicID + "/" + f.Version }

// Entry is one catalog entry with the catalog's values folded in.
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
	// Own reports which optional fields the entry sets itself.
	OwnURL, OwnStorage, OwnClass bool

	err error
}

// Path is the entry's values path, images[i].
func (e *Entry) Path() *field.Path { return field.NewPath("images").Index(e.Index) }

// Err is the entry's own refusals (invalid fields, duplicate), nil when valid.
// Refusals of the catalog's global fields that the entry inherits are
// included, at the global field.
func (e *Entry) Err() error { return e.err }

// Describe names the entry: "catalog entry images[2] (ce4c…/v1.13.6)".
func (e *Entry) Describe() string {
	return fmt.Sprintf("catalog entry %s (%s)", e.Path(), e.Flavor)
}

// Catalog is compiled catalog values: validated once, looked up by flavor.
// It is read-only and safe to share between goroutines.
type Catalog struct {
	Enabled bool
	// Unobserved is set on a catalog read back from a cluster (FromCluster)
	// whose goldens were not all observed: a flavor missing from it may
	// still exist, so its absence refuses nothing.
	Unobserved state.Kind
	Values     Values
	Entries    []Entry
	byKey      map[Flavor]int
	global     []*guard.Refusal
	err        error
}

// Compile validates v and indexes its entries. It never fails: refusals are
// kept on the catalog (Err) and on each entry (Entry.Err).
func Compile(v Values) *Catalog {
	c := &Catalog{Enabled: v.Enabled, Values: v, Entries: make([]Entry, len(v.Images)), byKey: make(map[Flavor]int, len(v.Images))}
	urlErr := naming.ValidateImageFactoryURL(v.ImageFactoryURL, field.NewPath("imageFactoryURL"))
	if urlErr != nil {
		c.global = append(c.global, urlErr.(*guard.Refusal))
	}
	globalSize, sizeErr := ParseSize(v.Storage, field.NewPath("storage"))
	if sizeErr != nil {
		c.global = append(c.global, sizeErr.(*guard.Refusal))
	}
	all := append([]*guard.Refusal(nil), c.global...)
	for i, img := range v.Images {
		e := &c.Entries[i]
		e.Index = i
		e.Flavor = Flavor{img.SchematicID, img.Version}
		var errs []*guard.Refusal
		add := func(err error) {
			for _, r := range guard.Refusals(err) {
				r.Detail = e.Describe() + ": " + r.Detail
				errs = append(errs, r)
			}
		}
		p := e.Path()
		name, err := naming.GoldenName(img.SchematicID, img.Version, p.Child("schematicID"), p.Child("version"))
		add(err)
		e.Golden = name

		e.ImageFactoryURL, e.OwnURL = pick(img.ImageFactoryURL, v.ImageFactoryURL)
		if e.OwnURL {
			add(naming.ValidateImageFactoryURL(e.ImageFactoryURL, p.Child("imageFactoryURL")))
		} else if urlErr != nil {
			errs = append(errs, urlErr.(*guard.Refusal))
		}
		e.URL = naming.ImageURL(e.ImageFactoryURL, img.SchematicID, img.Version)

		e.Storage, e.OwnStorage = pick(img.Storage, v.Storage)
		if e.OwnStorage {
			q, err := ParseSize(e.Storage, p.Child("storage"))
			add(err)
			e.Size = q
		} else if sizeErr != nil {
			errs = append(errs, sizeErr.(*guard.Refusal))
		} else {
			e.Size = globalSize
		}
		e.StorageClass, e.OwnClass = pick(img.StorageClass, v.StorageClass)

		if j, dup := c.byKey[e.Flavor]; dup {
			errs = append(errs, guard.NewRefusal(guard.DuplicateCatalogEntry, p, e.Flavor.String(),
				"%s: repeats images[%d]; a flavor has one golden, so remove one of the two entries", e.Describe(), j))
		} else {
			c.byKey[e.Flavor] = i
		}
		e.err = guard.Join(errs...)
		for _, r := range errs {
			if !isGlobal(r, c.global) {
				all = append(all, r)
			}
		}
	}
	for i, r := range all {
		cp := *r
		cp.Subject = "catalog"
		all[i] = &cp
	}
	c.err = guard.Join(all...)
	return c
}

func isGlobal(r *guard.Refusal, global []*guard.Refusal) bool {
	for _, g := range global {
		if g == r {
			return true
		}
	}
	return false
}

// pick is Helm's default: the entry's value unless empty.
func pick(own, global string) (string, bool) {
	if own != "" {
		return own, true
	}
	return global, false
}

// ParseSize parses a positive quantity, refusing anything else
// InvalidQuantity at fld. For example "6Gi" and "6144Mi" parse to equal
// quantities; "", "0", "-1Gi" and "6 GB" are refused.
func ParseSize(s string, fld *field.Path) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, guard.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a Kubernetes quantity; use a size such as 20Gi", s)
	}
	if q.Sign() <= 0 {
		return resource.Quantity{}, guard.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a positive size; use a size such as 20Gi", s)
	}
	return q, nil
}

// Err returns every refusal of the catalog's values (without cluster state),
// nil when there are none. The catalog is validated even when disabled.
func (c *Catalog) Err() error { return c.err }

// Lookup finds the entry of a flavor (the first, should two repeat it).
func (c *Catalog) Lookup(f Flavor) (*Entry, bool) {
	i, ok := c.byKey[f]
	if !ok {
		return nil, false
	}
	return &c.Entries[i], true
}

// LookupGolden finds the entry of a golden by its name.
func (c *Catalog) LookupGolden(name string) (*Entry, bool) {
	id, v, ok := naming.ParseGoldenName(name)
	if !ok {
		return nil, false
	}
	return c.Lookup(Flavor{id, v})
}
