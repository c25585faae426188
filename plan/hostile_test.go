package plan_test

import (
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A diskSize whose exponent no volume has ("3e4444444444444") is read on
// its text: resource.ParseQuantity and Quantity's Cmp would take hours on
// it. The clone path refuses it; the HTTP path renders it as given, with a
// warning, as for any size that is not one. "1e30" is a size, compared as
// any other, and refused as CDI's webhook refuses it: it reads the size as
// an int64 (validateStorageSize, pvcSize.Value()), 0 for 1e30, under 1MiB.
// Just clear, "1e18" fits an int64 and plans.
func TestHugeExponentDiskSize(t *testing.T) {
	snap := state.NewSnapshot(fullState())
	clone := builtinPool()
	clone.Spec.DiskSize = "3e4444444444444"
	res, err := plan.Plan(clone, enabledCatalog(), snap)
	if res.Outcome != plan.Refused || !hasRefusal(err, guard.InvalidQuantity) {
		t.Errorf("clone of %s: %s, %v", clone.Spec.DiskSize, res.Outcome, err)
	}
	http := httpPool()
	http.Spec.DiskSize = "3e4444444444444"
	res, err = plan.Plan(http, enabledCatalog(), snap)
	if err != nil || res.Outcome != plan.Planned || res.DiskSize != http.Spec.DiskSize || !hasWarning(res.Warnings, guard.InvalidQuantity) {
		t.Errorf("HTTP of %s: %s %q, %v %v", http.Spec.DiskSize, res.Outcome, res.DiskSize, res.Warnings, err)
	}
	clone.Spec.DiskSize = "1e30"
	if _, err := plan.Plan(clone, enabledCatalog(), snap); !hasRefusal(err, guard.DiskUnrenderable) || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("clone of 1e30: %v", err)
	}
	clone.Spec.DiskSize = "1e18"
	if res, err := plan.Plan(clone, enabledCatalog(), snap); err != nil || res.Outcome != plan.Planned {
		t.Errorf("clone of 1e18: %s, %v", res.Outcome, err)
	}
}

func hasRefusal(err error, r guard.Reason) bool {
	rs, _ := err.(guard.Refusals)
	for _, x := range rs {
		if x.Reason == r {
			return true
		}
	}
	return false
}

func hasWarning(ws guard.Warnings, r guard.Reason) bool {
	for _, w := range ws {
		if w.Reason == r {
			return true
		}
	}
	return false
}
