package invariants_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestPendingGoldenPredictionHoldsAfterBind: for every builtin pool of a
// fully observed cluster whose golden has no PVC yet (its DataVolume is
// importing, or only its catalog entry exists), the verdict the planner
// gives now (its outcome and its refusals, by reason and field) is the one
// it gives once CDI has bound the golden's PVC at the size it requests:
// the PVC rendered from the golden's DataVolume (or entry) as CDI renders
// it, an independent statement written from CDI's code (cluster.render),
// bound to a CSI volume of its class's provisioner, the import succeeded.
// A golden whose import failed is left out: succeeding changes its verdict
// by design.
func TestPendingGoldenPredictionHoldsAfterBind(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		for _, c := range pendingGoldenCases(wellFormedScenario(t)) {
			before, berr := c.before()
			after, aerr := c.after()
			if before.Outcome != after.Outcome || !slices.Equal(refusals(berr), refusals(aerr)) {
				t.Fatalf("pool %d: predicted %s %v, after the bind at %s (%s on %s) %s %v\nbefore: %v\nafter: %v",
					c.index, before.Outcome, refusals(berr), c.golden.Request.String(), mode(c.golden.Block), *c.golden.Class, after.Outcome, refusals(aerr),
					before.Refusals, after.Refusals)
			}
		}
	})
}

// TestPendingGoldenCoverage: the scenarios the property above draws reach
// pools with a pending golden, refused and not. Drawn by seed, so that the
// figures (logged with -v) do not depend on -rapid.checks or on chance.
func TestPendingGoldenCoverage(t *testing.T) {
	const draws = 5000
	scenarios := rapid.Custom(wellFormedScenario)
	checked, refused := 0, 0
	for seed := range draws {
		for _, c := range pendingGoldenCases(scenarios.Example(seed)) {
			checked++
			if before, _ := c.before(); before.Outcome == plan.Refused {
				refused++
			}
		}
	}
	t.Logf("%d scenarios, %d pools with a pending golden, %d of them refused", draws, checked, refused)
	if checked == 0 || refused == 0 || refused == checked {
		t.Errorf("%d draws reach %d pools with a pending golden, %d refused: want some of each", draws, checked, refused)
	}
}

// pendingGoldenCase is a builtin pool of a scenario whose golden has no PVC
// yet, and the cluster once CDI has bound it.
type pendingGoldenCase struct {
	index  int
	golden sourceClaim
	before func() (plan.Result, error)
	after  func() (plan.Result, error)
}

// pendingGoldenCases are the pools of s the property judges: builtin, with
// a golden that has no PVC yet and whose import has not failed, rendered on
// a class of the cluster, not waived as a golden gone.
func pendingGoldenCases(s plantest.Scenario) []pendingGoldenCase {
	cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
	c := cluster{s.State}
	var out []pendingGoldenCase
	for i, p := range s.Pools {
		name := goldenOf(p)
		f, ok := plantest.Flavor(p)
		if name == "" || !ok || c.claim(naming.GoldenNamespace, name) != nil {
			continue
		}
		var entry *catalog.Entry
		if e, found := cat.Lookup(f); found && cat.Enabled() && len(e.Refusals()) == 0 {
			entry = &e
		}
		dv := goldenDataVolume(s.State, name)
		if dv != nil && dv.Status.Phase == cdiv1.Failed || dv == nil && entry == nil {
			continue
		}
		g, ok := c.goldenClaim(name, goldenSourceOf(s.State, name, entry))
		if !ok {
			continue
		}
		sc := c.storageClass(*g.Class)
		if sc == nil {
			continue
		}
		if r, _ := plan.Plan(p, cat, snap); hasReason(r.Warnings, guard.GoldenUnavailable) {
			continue // a pool that has cloned a golden now gone is waived until it is back
		}
		afterSnap := state.NewSnapshot(bound(s.State, name, g, sc.Provisioner))
		out = append(out, pendingGoldenCase{
			index:  i,
			golden: g,
			before: func() (plan.Result, error) { return plan.Plan(p, cat, snap) },
			after:  func() (plan.Result, error) { return plan.Plan(p, cat, afterSnap) },
		})
	}
	return out
}

func goldenDataVolume(st *state.State, name string) *cdiv1.DataVolume {
	for i := range st.DataVolumes {
		if d := &st.DataVolumes[i]; d.Namespace == naming.GoldenNamespace && d.Name == name {
			return d
		}
	}
	return nil
}

func mode(block bool) corev1.PersistentVolumeMode {
	if block {
		return corev1.PersistentVolumeBlock
	}
	return corev1.PersistentVolumeFilesystem
}

// bound is st once CDI has bound golden name's PVC g at its request on a
// CSI volume of driver, and its import has succeeded. st is not changed.
func bound(st *state.State, name string, g sourceClaim, driver string) *state.State {
	out := *st
	out.DataVolumes = slices.Clone(st.DataVolumes)
	for i := range out.DataVolumes {
		if d := &out.DataVolumes[i]; d.Namespace == naming.GoldenNamespace && d.Name == name {
			d.Status.Phase = cdiv1.Succeeded
			d.Status.RestartCount = 0
			d.Status.Conditions = nil
		}
	}
	claim := fixtures.PVC(naming.GoldenNamespace, name).Class(*g.Class).VolumeMode(mode(g.Block)).
		AccessModes(corev1.ReadWriteMany).VolumeName("pv-" + name).Bound().Obj()
	claim.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: g.Request}
	claim.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: g.Request}
	claim.Annotations = map[string]string{contentTypeAnnotation: "kubevirt"}
	out.PersistentVolumeClaims = append(slices.Clone(st.PersistentVolumeClaims), *claim)
	out.PersistentVolumes = append(slices.Clone(st.PersistentVolumes), *fixtures.VolumeOf(claim, driver))
	return &out
}
