package plan

import (
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// checkSize refuses a disk smaller than its golden: a clone target cannot
// be smaller than its source.
func (p *planner) checkSize(cl *clone) {
	if !cl.golden.BoundKnown {
		p.unverified |= state.PersistentVolumeClaim // the bound capacity may be larger
	}
	gs := cl.golden.Size()
	if !cl.sizeOK || gs.IsZero() || cl.size.Cmp(gs) >= 0 {
		return
	}
	p.c.Refuse(guard.DiskSmallerThanGolden, pathDiskSize, p.diskSize(),
		"diskSize %s is smaller than golden %s (%s); a clone cannot be smaller than its source: set diskSize to %s or more",
		p.diskSize(), cl.golden.Name, gs.String(), gs.String())
}
