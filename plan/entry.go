package plan

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func init() { diskentry.Register(planEntry) }

// planEntry plans a pool as Plan does, with the same guards, warnings and
// refusals, and describes its disk in place of building the DataVolume
// object: the result's Disk is empty. adapters/helm writes the chart's
// text from the description.
func planEntry(pool Pool, cat *catalog.Catalog, snap *state.Snapshot) (Result, diskentry.Disk) {
	p := newPlanner(pool, cat, snap)
	p.entryOnly = true
	p.run()
	return p.res, p.entry
}
