package whatif_test

import (
	"slices"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// A plan the steps do not fix is stuck: a builtin pool of 1Gi needs
// v1.13.7's golden (6Gi) after the bump, and once the steps added its
// entry it would still be refused, DiskSmallerThanGolden. It keeps both
// refusals, gets no step (adding the entry does not make it plan) and does
// not roll; its golden's import is not counted. The pool beside it, the
// same at 20Gi, is fixed by its steps.
func TestDiffStuckPlan(t *testing.T) {
	small := whatif.PoolValues{Namespace: tenant, Name: "demo-small", Spec: map[string]any{"cluster": "demo", "diskSize": "1Gi", "osImage": map[string]any{"builtin": map[string]any{}}}}
	ch := whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}}
	rep, err := whatif.Diff(whatif.Input{Pools: []whatif.PoolValues{small}, Catalog: defaultCatalog(), Snapshot: cozystack()}, ch)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pools[0]
	if p.Rolls || !slices.Equal(reasons(p.After.Refusals), []guard.Reason{guard.GoldenNotInCatalog, guard.DiskSmallerThanGolden}) {
		t.Errorf("stuck: rolls %t, refusals %v; want no roll, the entry's refusal and the one that stays", p.Rolls, reasons(p.After.Refusals))
	}
	if len(rep.Steps) != 0 || rep.Transfer.HTTPBytes == nil || *rep.Transfer.HTTPBytes != 0 {
		t.Errorf("stuck: steps %v, transfer %+v; want none, nothing moved", rep.Steps, rep.Transfer)
	}
	// Just clear: at 20Gi the steps fix it.
	fixed := small
	fixed.Spec = map[string]any{"cluster": "demo", "diskSize": "20Gi", "osImage": map[string]any{"builtin": map[string]any{}}}
	rep, err = whatif.Diff(whatif.Input{Pools: []whatif.PoolValues{fixed}, Catalog: defaultCatalog(), Snapshot: cozystack()}, ch)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Pools[0]; !p.Rolls || !slices.Equal(reasons(p.After.Refusals), []guard.Reason{guard.GoldenNotInCatalog}) || len(rep.Steps) != 3 {
		t.Errorf("fixed by its steps: rolls %t, refusals %v, steps %v", p.Rolls, reasons(p.After.Refusals), rep.Steps)
	}
}

// The MachineDeployment's version is the chart's versionMap of the pool's
// version value: moving the chart's default rolls every pool that takes
// it, whatever its template does; a pool that sets its own does not roll.
func TestDiffKubernetesVersion(t *testing.T) {
	pools := []whatif.PoolValues{
		{Namespace: tenant, Name: "demo-md1", Spec: map[string]any{"cluster": "demo"}},
		{Namespace: tenant, Name: "demo-pinned", Spec: map[string]any{"cluster": "demo", "version": "v1.33"}},
	}
	rep, err := whatif.Diff(whatif.Input{Pools: pools, Catalog: defaultCatalog(), Snapshot: cozystack()},
		whatif.Change{Defaults: []whatif.ChartDefault{{Key: "version", Value: "v1.34"}}})
	if err != nil {
		t.Fatal(err)
	}
	md1, pinned := byName(t, rep, "demo-md1"), byName(t, rep, "demo-pinned")
	if !md1.Rolls || md1.Before.KubernetesVersion != "" || md1.After.KubernetesVersion != "v1.34" {
		t.Errorf("demo-md1 takes the default: rolls %t, version %q → %q", md1.Rolls, md1.Before.KubernetesVersion, md1.After.KubernetesVersion)
	}
	if pinned.Rolls {
		t.Error("demo-pinned sets its own version: it does not roll")
	}
	if !slices.Equal(rep.Steps, []whatif.Step{{Action: whatif.RollPool, Target: tenant + "/demo-md1"}}) {
		t.Errorf("steps %v", rep.Steps)
	}
}

// A rolling pool whose golden's state is not known (cozy-public not
// observed) leaves the HTTP figure unknown: whether the golden still has
// to be imported is not known.
func TestDiffGoldenStateUnknown(t *testing.T) {
	st := cozystackState(state.AllKinds)
	st.Namespaces = []string{tenant}
	after := defaultCatalog().Values()
	after.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: fixtures.DefaultSchematicID, Version: v1137}}}
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools()[:1], Catalog: defaultCatalog(), Snapshot: state.NewSnapshot(st)},
		whatif.Change{Catalog: catalog.Compile(after), Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pools[0]
	if p.After.GoldenState != whatif.GoldenStateUnknown {
		t.Fatalf("golden state %s, want unknown", p.After.GoldenState)
	}
	if rep.Transfer.HTTPBytes != nil || !slices.Contains(rep.Transfer.Unverified, tenant+"/demo-md0") {
		t.Errorf("transfer %+v: the HTTP figure is not known, and says which pool", rep.Transfer)
	}
}

// Decide refuses a plan before the comparison: a pool it refuses neither
// rolls nor gets a step. Decide cannot make a refused plan planned.
func TestDiffDecide(t *testing.T) {
	refuseAll := func(r plan.Result) plan.Result {
		r.Outcome, r.Refusals = plan.Refused, append(r.Refusals, &guard.Refusal{Reason: guard.StateUnverified, Field: "osImage"})
		return r
	}
	ch := whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}}
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools()[1:2], Catalog: defaultCatalog(), Snapshot: cozystack(), Decide: refuseAll}, ch)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Pools[0]; p.Rolls || p.After.Outcome != plan.Refused || len(rep.Steps) != 0 {
		t.Errorf("decided refused: rolls %t, outcome %s, steps %v", p.Rolls, p.After.Outcome, rep.Steps)
	}
	planAll := func(r plan.Result) plan.Result { r.Outcome, r.Refusals = plan.Planned, nil; return r }
	rep, err = whatif.Diff(whatif.Input{Pools: tenantPools()[:1], Catalog: defaultCatalog(), Snapshot: cozystack(), Decide: planAll}, ch)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Pools[0]; p.After.Outcome != plan.Refused {
		t.Errorf("a refused plan stays refused whatever Decide says: %s", p.After.Outcome)
	}
}
