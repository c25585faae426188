package whatif

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// GoldenState is how far a golden a pool needs is from serving it.
type GoldenState string

const (
	// Imported: in the catalog, its import succeeded (or only its PVC is
	// left, populated).
	Imported GoldenState = "imported"
	// Importing: in the catalog, its import under way (stalled included).
	Importing GoldenState = "importing"
	// NotCreated: in the catalog, but neither its DataVolume nor its PVC
	// exists yet: the catalog's release creates it.
	NotCreated GoldenState = "not-created"
	// NotInCatalog: no enabled catalog entry serves it, whatever exists in
	// cozy-public (an unmanaged golden takes no new pools).
	NotInCatalog GoldenState = "not-in-catalog"
	// ImportFailed: in the catalog, its import failed.
	ImportFailed GoldenState = "import-failed"
	// GoldenStateUnknown: the cluster's goldens were not observed (or the
	// catalog was read back from goldens not all observed).
	GoldenStateUnknown GoldenState = "unknown"
)

// goldenState is the state of golden name, of flavor f, against cat and
// the cluster, and whether the golden is populated in the cluster, served
// or not (an entry that serves it again has nothing to import).
func goldenState(name string, f catalog.Flavor, cat *catalog.Catalog, snap *state.Snapshot) (GoldenState, bool) {
	g := golden.Observe(name, nil, snap)
	populated := g.Presence == golden.Present && g.Import == golden.Populated
	if _, ok := cat.Lookup(f); !ok || !cat.Enabled() {
		if cat.UnobservedKinds() != 0 {
			return GoldenStateUnknown, populated
		}
		return NotInCatalog, populated
	}
	return servedState(g), populated
}

// servedState is how far a golden a catalog entry serves has come.
func servedState(g golden.Golden) GoldenState {
	switch g.Presence {
	case golden.Unobserved:
		return GoldenStateUnknown
	case golden.Absent:
		return NotCreated
	}
	switch g.Import {
	case golden.Populated:
		return Imported
	case golden.Importing, golden.Stalled:
		return Importing
	case golden.Failed:
		return ImportFailed
	}
	return GoldenStateUnknown
}

// builtinGolden is the golden a pool's values clone, after defaulting from
// talos.*, and its flavor: "" for a pool that does not set osImage.builtin
// alone, or whose flavor names no golden (its plan refuses it). planned is
// the name of a plan that stands, which the planner validated.
func builtinGolden(spec *plan.PoolSpec, planned string) (string, catalog.Flavor) {
	img := spec.OSImage
	if img == nil || img.Builtin == nil || img.Factory != nil {
		return "", catalog.Flavor{}
	}
	// osImage.builtin's fields, each defaulting to talos.*'s, as the chart
	// defaults them.
	f := catalog.Flavor{SchematicID: img.Builtin.SchematicID, Version: img.Builtin.Version}
	if f.SchematicID == "" {
		f.SchematicID = spec.Talos.SchematicID
	}
	if f.Version == "" {
		f.Version = spec.Talos.Version
	}
	if planned != "" {
		return planned, f
	}
	name := golden.NameOf(f.SchematicID, f.Version)
	if name == "" {
		return "", catalog.Flavor{}
	}
	return name, f
}
