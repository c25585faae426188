package cli

import (
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// reimageNotice is the seam of issue 18's notice "this pool's workers will
// be re-imaged": given a planned pool and the cluster's state, it says
// (non-empty) that the disk-system the plan gives differs from the one the
// pool's live KubevirtMachineTemplate holds, by its source or its text, so
// that applying it rolls every worker. It needs the KubevirtMachineTemplate
// state kind (SPEC section 12), which is not read yet: until it is, it is
// nil and no notice is printed. The one who adds the kind sets it here and
// adds the templates to the plan's needs; the human output prints each
// notice under its pool's warnings.
var reimageNotice func(r plan.Result, snap *state.Snapshot) string

// notices are the re-image notices of results, by index.
func notices(results []plan.Result, snap *state.Snapshot) map[int]string {
	if reimageNotice == nil {
		return nil
	}
	out := map[int]string{}
	for i, r := range results {
		if r.Outcome == plan.Planned {
			if n := reimageNotice(r, snap); n != "" {
				out[i] = n
			}
		}
	}
	return out
}
