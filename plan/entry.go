package plan

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func init() { diskentry.Register(planEntry) }

// planEntry plans a pool as Plan does, with the same guards, warnings and
// refusals, and describes its disk in *d in place of building the
// DataVolume object: the result's Disk is empty. adapters/helm writes the
// chart's text from d.
func planEntry(pool Pool, cat *catalog.Catalog, snap *state.Snapshot, d *diskentry.Disk) Result {
	p := newPlanner(pool, cat, snap)
	p.entry = d
	p.run()
	return p.res
}
