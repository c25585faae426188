package plan

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/cloneguard"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// flavor is the builtin flavor after defaulting from talos.*, with the
// values path each part came from.
func (p *planner) flavor(b *catalog.Flavor) (catalog.Flavor, *field.Path, *field.Path) {
	return p.pool.Spec.builtinFlavor(b)
}

// builtinFlavor is the flavor b names, each part defaulted from talos.*,
// with the values path each part came from: the one reading of a pool's
// golden, for its plan, its needs, its diff and its consumers.
func (s *PoolSpec) builtinFlavor(b *catalog.Flavor) (catalog.Flavor, *field.Path, *field.Path) {
	t := &s.Talos
	f := catalog.Flavor{SchematicID: b.SchematicID, Version: b.Version}
	idPath, verPath := pathBuiltinSchematicID, pathBuiltinVersion
	if f.SchematicID == "" {
		f.SchematicID, idPath = t.SchematicID, pathTalosSchematicID
	}
	if f.Version == "" {
		f.Version, verPath = t.Version, pathTalosVersion
	}
	return f, idPath, verPath
}

// clone is what the clone path learns on its way; it keeps planClone's
// steps small.
type clone struct {
	goldenName string
	pool       string // the pool's CAPI name
	// alreadyCloned: disks of the pool were cloned from the golden.
	alreadyCloned bool
	// managed: the flavor has an entry in the enabled catalog.
	managed bool
	size    resource.Quantity
	sizeOK  bool
}

// The worker disk's values paths and words, for the clone guards.
var (
	workerPaths = cloneguard.Paths{Source: pathBuiltin, Class: pathStorageClass, Size: pathDiskSize}
	workerWords = cloneguard.Words{
		Disks: "the worker disks", Disk: "the worker disk", Owner: "the pool's disk",
		ClassField: "storageClass", SizeField: "diskSize", SizeExample: chartdefaults.DiskSize,
		OtherSource: ", or pick another flavor",
		MismatchFix: "set storageClass: %[1]s on the pool, or use a catalog entry on %[2]q",
	}
)

func (p *planner) planClone(b *catalog.Flavor) {
	f, idPath, verPath := p.flavor(b)
	var cl clone
	entry, inCatalog := p.cat.Lookup(f)
	name := ""
	if inCatalog && entry.Golden != "" {
		name = entry.Golden // validated when the catalog was compiled
	} else {
		var errs guard.Refusals
		name, errs = naming.GoldenName(f.SchematicID, f.Version, idPath, verPath)
		p.c.Add(errs)
	}
	// A clone's size must be a positive quantity: anything else is refused.
	// A spec's diskSize "" is not set, and clones at 20Gi.
	if !p.checkDiskSize() {
		if q, errs := size.Parse(p.diskSize(), pathDiskSize); p.c.Add(errs) {
			cl.size, cl.sizeOK = q, true
		}
	}
	p.res.InstallerImage = naming.InstallerImage(p.pool.Spec.Talos.InstallerRepository, f.SchematicID, f.Version)
	if name == "" {
		return
	}
	cl.goldenName = name
	cl.pool = naming.PoolCAPIName(p.pool.Name)
	cl.alreadyCloned = stateindex.Of(p.snap).HasCloned(p.pool.Namespace, cl.pool, name)

	var expected golden.Expected
	switch unread := p.cat.UnobservedKinds(); {
	case len(p.cat.Unreadable()) > 0:
		// Values the chart cannot read serve no golden; they, not the
		// flavor, are at fault.
		p.c.Add(p.cat.Unreadable())
	case inCatalog && p.cat.Enabled():
		cl.managed = true
		expected = golden.Expected{Class: entry.StorageClass, Request: entry.Size, URL: entry.URL}
		p.c.Add(entry.Refusals())
	case unread != 0 && !cl.alreadyCloned:
		// Read back from goldens that were not all observed: the flavor
		// may exist, so its absence refuses nothing.
		p.unverified |= unread
	case cl.alreadyCloned:
		p.c.Warn(guard.GoldenUnavailable, pathBuiltin,
			"golden %s is %s; the pool's running workers are fine, but new workers will not boot until the golden is back: add %s to the catalog", name, p.notInCatalog(), f)
	default:
		p.c.Refuse(guard.GoldenNotInCatalog, pathBuiltin, f.String(),
			"golden %s is %s, so there is nothing to clone; add {schematicID: %s, version: %s} to the catalog's images (and enable it), or pick a flavor the catalog has", name, p.notInCatalog(), f.SchematicID, f.Version)
	}
	// The clone guards, once for every clone: the pool's disk clones the
	// golden in cozy-public, and its disks already cloned freeze its class.
	req := cloneguard.Request{
		Namespace: p.pool.Namespace, Class: p.pool.Spec.StorageClass,
		Size: cl.size, SizeOK: cl.sizeOK,
		Source:   stateindex.Key{Namespace: naming.GoldenNamespace, Name: name},
		Expected: expected, Expects: cl.managed, Pool: cl.pool,
		AlreadyCloned: cl.alreadyCloned, Catalogued: true, Managed: cl.managed,
		Paths: workerPaths, Words: workerWords,
	}
	req.Words.SizeText = p.diskSize()
	v := cloneguard.Judge(&req, p.snap)
	p.c.Merge(&v.Findings)
	p.unverified |= v.Unverified
	p.writeClone(&cl, v.Class)
}

func (p *planner) notInCatalog() string {
	if !p.cat.Enabled() {
		return "not served: the catalog is disabled"
	}
	return "not in the catalog"
}
