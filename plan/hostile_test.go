package plan_test

import (
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
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
	for _, x := range fixtures.Refusals(err) {
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

// A diskSize text past 64 characters is refused InvalidValue at diskSize,
// unparsed (resource.ParseQuantity is quadratic in the length: two million
// digits took seconds), on either path, the message naming the limit; 64
// characters (20Gi behind 60 zeros) plan as 20Gi.
func TestLongDiskSize(t *testing.T) {
	snap := state.NewSnapshot(fullState())
	at64, at65 := strings.Repeat("0", 60)+"20Gi", strings.Repeat("0", 61)+"20Gi"
	for _, clone := range []bool{false, true} {
		values := func(diskSize string) map[string]any {
			v := map[string]any{"cluster": "demo", "diskSize": diskSize}
			if clone {
				v["osImage"] = map[string]any{"builtin": map[string]any{}}
			}
			return v
		}
		for _, s := range []string{at65, strings.Repeat("9", 2_000_000)} {
			res, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", values(s)), enabledCatalog(), snap)
			if got := refusalsOf(err); len(got) != 1 || got[0] != f(guard.InvalidValue, "diskSize") || !strings.Contains(res.Refusals[0].Detail, "at most 64 characters") {
				t.Errorf("clone %v, %d characters: %v; want InvalidValue at diskSize naming the limit", clone, len(s), got)
			}
		}
		res, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", values(at64)), enabledCatalog(), snap)
		if err != nil || res.Outcome != plan.Planned || res.DiskSize != at64 {
			t.Errorf("clone %v, 64 characters: %s %q, %v", clone, res.Outcome, res.DiskSize, err)
		}
	}
}

// BenchmarkHostileDiskSize decodes and plans a pool whose diskSize is two
// million digits, refused on its length: in the time of an ordinary pool
// (resource.ParseQuantity took seconds on it).
func BenchmarkHostileDiskSize(b *testing.B) {
	snap := state.NewSnapshot(fullState())
	cat := enabledCatalog()
	huge := strings.Repeat("9", 2_000_000)
	for name, osImage := range map[string]any{"http": nil, "clone": map[string]any{"builtin": map[string]any{}}} {
		b.Run(name, func(b *testing.B) {
			values := map[string]any{"cluster": "demo", "diskSize": huge, "osImage": osImage}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", values), cat, snap); err == nil {
					b.Fatal("planned")
				}
			}
		})
	}
}
