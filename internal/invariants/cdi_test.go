package invariants_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// cdiGuards are the refusals that predict what CDI does with the disk;
// the others are the catalog's and the values' rules.
var cdiGuards = []guard.Reason{guard.StorageClassMismatch, guard.StorageClassNotFound, guard.DiskUnrenderable,
	guard.DefaultStorageClassUnresolvable, guard.DiskSmallerThanGolden, guard.HostAssistedClone}

// cdiCase is one builtin pool of a fully observed scenario, as CDI sees it.
type cdiCase struct {
	Pool    plan.Pool
	Disk    workerDisk
	Source  *goldenSource
	Verdict cdiVerdict
	// ClassesAgree: the disk renders on the golden's class, or the golden
	// exists on no class at all (both sides resolved as the planner does,
	// read again from the raw state), and the golden has or will have a PVC.
	ClassesAgree bool
	// Served: the enabled catalog holds the pool's flavor, valid.
	Served bool
	// cluster describes the state, for failure messages.
	cluster string
}

// cdiCaseOf is the disk a builtin pool's plan writes, read from the pool
// and the raw state (the pool's class; empty, the class the pool's cloned
// disks are on, else none, which CDI resolves to its default), and CDI's
// verdict on it. ok is false for a pool that does not clone, or whose disk
// is not determined (its cloned disks on several classes, a diskSize that
// does not parse).
func cdiCaseOf(s plantest.Scenario, cat *catalog.Catalog, snap *state.Snapshot, p plan.Pool) (cdiCase, bool) {
	f, ok := plantest.Flavor(p)
	if !ok {
		return cdiCase{}, false
	}
	golden := goldenOf(p)
	c := cdiCase{Pool: p, Disk: workerDisk{Golden: golden}}
	size := p.Spec.DiskSize
	if size == "" {
		size = chartdefaults.DiskSize
	}
	q, err := resource.ParseQuantity(size)
	if err != nil || q.Sign() <= 0 {
		return cdiCase{}, false
	}
	c.Disk.Size = q
	cloned := stateindex.Of(snap).ClonedClasses(p.Namespace, naming.PoolCAPIName(p.Name), golden)
	switch {
	case p.Spec.StorageClass != "":
		c.Disk.Class = ptr.To(p.Spec.StorageClass)
	case len(cloned) == 1:
		c.Disk.Class = ptr.To(cloned[0])
	case len(cloned) > 1:
		return cdiCase{}, false
	}
	var entry *catalog.Entry
	if e, found := cat.Lookup(f); found && cat.Enabled() && len(e.Refusals()) == 0 {
		entry, c.Served = &e, true
	}
	c.Source = goldenSourceOf(s.State, golden, entry)
	c.Verdict = cdiDecide(s.State, c.Disk, c.Source)
	c.cluster = describeCDI(s.State, golden)

	g := resolveGolden(s.State, golden, entry)
	if g.FromDefault && g.HasPVC && len(cloned) == 1 {
		g.Class = cloned[0] // the pool's clones prove the class the golden's PVC is on
	}
	c.ClassesAgree = c.Verdict.GoldenComes && (g.Classless || g.Class != "" && g.Class == c.Verdict.Class)
	return c, true
}

// goldenSourceOf is what the golden's PVC will be rendered from when it
// does not exist: its DataVolume, else its catalog entry (the DataVolume
// catalog.Render writes), else nothing.
func goldenSourceOf(st *state.State, name string, e *catalog.Entry) *goldenSource {
	for _, dv := range st.DataVolumes {
		if dv.Namespace != naming.GoldenNamespace || dv.Name != name {
			continue
		}
		switch {
		case dv.Spec.Storage != nil:
			return &goldenSource{Class: dv.Spec.Storage.StorageClassName, Size: dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage]}
		case dv.Spec.PVC != nil:
			return &goldenSource{Class: dv.Spec.PVC.StorageClassName, Size: dv.Spec.PVC.Resources.Requests[corev1.ResourceStorage]}
		}
		return nil
	}
	if e == nil {
		return nil
	}
	src := &goldenSource{Size: e.Size}
	if e.StorageClass != "" {
		src.Class = ptr.To(e.StorageClass)
	}
	return src
}

// hostAssistedOf lists the messages of a plan's HostAssistedClone
// refusals, in order.
func hostAssistedOf(rs guard.Refusals) []string {
	var out []string
	for _, r := range rs {
		if r.Reason == guard.HostAssistedClone {
			out = append(out, r.Detail)
		}
	}
	return out
}

// waived reports whether the plan waives the golden: the pool has cloned a
// golden now gone, and is not refused for it (GoldenUnavailable); what CDI does
// once it is back is not judged until then.
func waived(res plan.Result, st *state.State, c cdiCase) bool {
	return hasReason(res.Warnings, guard.GoldenUnavailable) && !goldenExists(st, c.Disk.Golden)
}

// cdiRefusals lists a plan's refusals among cdiGuards.
func cdiRefusals(rs guard.Refusals) []guard.Reason {
	var out []guard.Reason
	for _, r := range rs {
		if slices.Contains(cdiGuards, r.Reason) {
			out = append(out, r.Reason)
		}
	}
	return out
}

func (c cdiCase) String() string {
	class := "<none>"
	if c.Disk.Class != nil {
		class = *c.Disk.Class
	}
	return fmt.Sprintf("disk %s on %s cloning %s: CDI %s (%s), causes %v, first %q; %s", c.Disk.Size.String(), class, c.Disk.Golden,
		c.Verdict.Outcome, c.Verdict.Reason, c.Verdict.Causes, c.Verdict.First, c.cluster)
}

// describeCDI says what a state holds that CDI's clone reads, for failure
// messages.
func describeCDI(st *state.State, golden string) string {
	c := cluster{st}
	s := ""
	for _, sc := range st.StorageClasses {
		s += fmt.Sprintf("class %s (%s, expansion %v, default %v); ", sc.Name, sc.Provisioner, deref(boolText(sc.AllowVolumeExpansion)), sc.Annotations)
	}
	for _, sp := range st.StorageProfiles {
		s += fmt.Sprintf("profile %s (sets %v, strategy %v, snapshotClass %v, minimum %q); ", sp.Name, sp.Status.ClaimPropertySets,
			deref((*string)(sp.Status.CloneStrategy)), deref(sp.Status.SnapshotClass), sp.Annotations["cdi.kubevirt.io/minimumSupportedPvcSize"])
	}
	for _, d := range st.CSIDrivers {
		s += "CSIDriver " + d.Name + "; "
	}
	for _, x := range st.CDIs {
		s += fmt.Sprintf("CDI %s override %v; ", x.Name, deref((*string)(x.Spec.CloneStrategyOverride)))
	}
	for _, v := range st.VolumeSnapshotClasses {
		s += fmt.Sprintf("VSC %s (%s, %v); ", v.Name, v.Driver, v.Annotations)
	}
	if cfg := c.config(); cfg != nil {
		s += fmt.Sprintf("CDIConfig overhead %+v; ", cfg.Status.FilesystemOverhead)
	}
	for _, dv := range st.DataVolumes {
		if dv.Namespace == naming.GoldenNamespace && dv.Name == golden {
			s += fmt.Sprintf("golden DV class %q phase %s; ", stateindex.DataVolumeClass(&dv), dv.Status.Phase)
		}
	}
	if p := c.claim(naming.GoldenNamespace, golden); p != nil {
		s += fmt.Sprintf("golden PVC class %v mode %v request %v capacity %v phase %s volume %q; ", deref(p.Spec.StorageClassName), deref((*string)(p.Spec.VolumeMode)),
			p.Spec.Resources.Requests, p.Status.Capacity, p.Status.Phase, p.Spec.VolumeName)
		if v := c.volume(p.Spec.VolumeName); v != nil {
			s += fmt.Sprintf("its PV csi %v hostPath %v claimRef %v", v.Spec.CSI, v.Spec.HostPath, v.Spec.ClaimRef)
		}
	}
	return s
}

func boolText(b *bool) *string {
	if b == nil {
		return nil
	}
	return ptr.To(fmt.Sprint(*b))
}

// TestHostAssistedCausesFollowCDI (invariant 11): for
// every builtin pool of a fully observed cluster whose disk CDI renders on
// the golden's class (or whose golden has no class), the planner's
// HostAssistedClone refusals are exactly the host-assisted causes that
// hold, as an independent statement of CDI v1.64.0's order finds them
// (cdiDecide, written from CDI's code): it refuses HostAssistedClone
// exactly when a cause holds, one refusal per cause, its first refusal
// names the cause CDI reports first (NoPopulator, "cloneStrategy copy",
// NoVolumeSnapshotClass, IncompatibleProvisioners, IncompatibleVolumeModes,
// NoVolumeExpansion: the reason tokens the messages carry; a strategy CDI
// does not know reports none), and when CDI clones the plan refuses none of
// the CDI guards, and is planned when the catalog serves the flavor.
func TestHostAssistedCausesFollowCDI(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := wellFormedScenario(t)
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		for i, p := range s.Pools {
			c, ok := cdiCaseOf(s, cat, snap, p)
			if !ok || !c.ClassesAgree {
				continue
			}
			res, _ := plan.Plan(p, cat, snap)
			if waived(res, s.State, c) {
				continue
			}
			got := plannerCauses(hostAssistedOf(res.Refusals))
			switch {
			case (len(got) > 0) != (len(c.Verdict.Causes) > 0) || !sameSet(got, c.Verdict.Causes):
				t.Fatalf("pool %d: the plan refuses HostAssistedClone for %v; %s\n%v", i, got, c, res.Refusals)
			case len(got) > 0 && c.Verdict.First != "" && plannerReasons(hostAssistedOf(res.Refusals))[0] != c.Verdict.First:
				t.Fatalf("pool %d: the plan's first HostAssistedClone names %q; %s\n%v", i, plannerReasons(hostAssistedOf(res.Refusals))[0], c, res.Refusals)
			case c.Verdict.Outcome.clones() && len(cdiRefusals(res.Refusals)) > 0:
				t.Fatalf("pool %d: CDI clones, the plan refuses %v; %s\n%v", i, cdiRefusals(res.Refusals), c, res.Refusals)
			case c.Verdict.Outcome.clones() && c.Served && importOK(s.State, c.Disk.Golden) && res.Outcome != plan.Planned:
				t.Fatalf("pool %d: CDI clones a golden the catalog serves, the plan refuses: %v; %s", i, res.Refusals, c)
			}
		}
	})
}

// importOK reports whether the golden's import has not failed: its
// DataVolume, if any, is not in phase Failed (GoldenImportFailed; restarts
// are only stalled, CDI waits for Succeeded).
func importOK(st *state.State, name string) bool {
	for _, dv := range st.DataVolumes {
		if dv.Namespace == naming.GoldenNamespace && dv.Name == name && dv.Status.Phase == cdiv1.Failed {
			return false
		}
	}
	return true
}

// TestUnobservedProvesNoHostAssistedCause (invariant 12):
// with some of the kinds the host-assisted causes rest on turned unknown
// (the CSIDrivers, the CDI resource, the StorageProfiles, the
// VolumeSnapshotClasses, the golden's PersistentVolume, the CDIConfig, the
// StorageClasses), for every pool cdiDecide judges on the whole cluster,
// the planner refuses HostAssistedClone only for a cause that holds and
// rests on nothing unknown; and a cause that holds but rests on an unknown
// kind is not refused, and StateUnverified names such a kind.
func TestUnobservedProvesNoHostAssistedCause(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := wellFormedScenario(t)
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		less := plantest.CopyState(s.State)
		var hidden state.Kind
		for _, k := range []state.Kind{state.CSIDriver, state.CDI, state.StorageProfile, state.VolumeSnapshotClass,
			state.PersistentVolume, state.CDIConfig, state.StorageClass} {
			if rapid.IntRange(0, 3).Draw(t, "unknown"+k.String()) == 0 {
				hidden |= k
			}
		}
		less.Observed &^= hidden
		if rapid.Bool().Draw(t, "dropObjects") {
			dropUnobserved(less)
		}
		lessSnap := state.NewSnapshot(less)
		for i, p := range s.Pools {
			c, ok := cdiCaseOf(s, cat, snap, p)
			if !ok || !c.ClassesAgree {
				continue
			}
			if full, _ := plan.Plan(p, cat, snap); waived(full, s.State, c) {
				continue
			}
			res, _ := plan.Plan(p, cat, lessSnap)
			got := plannerCauses(hostAssistedOf(res.Refusals))
			named := goldenVolumeName(s.State, c.Disk.Golden) != ""
			for _, cause := range got {
				if !slices.Contains(c.Verdict.Causes, cause) || causeDeps(cause, named)&hidden != 0 {
					t.Fatalf("pool %d: %s refused with %v unknown; %s", i, cause, hidden, c)
				}
			}
			for _, cause := range c.Verdict.Causes {
				if slices.Contains(got, cause) {
					continue
				}
				unknown := causeDeps(cause, named) & hidden
				if unknown == 0 {
					t.Fatalf("pool %d: %s, which rests on nothing unknown (%v), went away; %s\n%v", i, cause, hidden, c, res.Refusals)
				}
				if unverified(res.Warnings)&unknown == 0 {
					t.Fatalf("pool %d: %s is not refused, and StateUnverified names none of %v (it names %v); %s", i, cause, unknown, unverified(res.Warnings), c)
				}
			}
		}
	})
}

// TestRefusedIffCDIWouldNotClone (invariant 13): for
// every builtin pool of a fully observed cluster, the plan refuses for a
// CDI guard (cdiGuards) exactly when CDI, as cdiDecide states it, would copy
// the golden host-assisted, never render the disk's PVC, reject the disk
// or fail the clone; it refuses none of them when CDI clones or waits.
// Where no PVC of the golden exists or ever will (no golden, or one whose
// own DataVolume CDI cannot render), the disk waits for it for ever, and
// only the disk's side is asked: the plan refuses a disk CDI rejects or
// never renders (the rest is the planner's own: GoldenNotInCatalog, a
// golden class no default resolves, the catalog's render refusing the
// entry). Kept on purpose, and excused by name:
//
//   - StorageClassMismatch where CDI clones or waits: the seed's one class
//     per flavor, kept although CDI compares drivers, not
//     classes;
//   - HostAssistedClone alone where CDI errors and waits before the cause
//     the planner proves: a VolumeSnapshotClass both StorageProfiles name
//     that does not exist, a golden's PersistentVolume whose claimRef
//     points at another claim, no single active CDI resource (CDI's
//     GetActiveCDI, which the planner does not read); with it
//     DiskSmallerThanGolden for a Block disk of a Filesystem golden the
//     disk's request does not reach (the planner bounds the image by the
//     golden's request, the oracle assumes it fits);
//   - HostAssistedClone or DiskSmallerThanGolden where CDI waits for the
//     golden's PVC to bind: the planner predicts it bound at its request.
func TestRefusedIffCDIWouldNotClone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := wellFormedScenario(t)
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		for i, p := range s.Pools {
			c, ok := cdiCaseOf(s, cat, snap, p)
			if !ok {
				continue
			}
			res, _ := plan.Plan(p, cat, snap)
			refused := cdiRefusals(res.Refusals)
			switch {
			case c.Verdict.Renders && !c.Verdict.GoldenComes:
			case (len(refused) > 0) == c.Verdict.Outcome.refuses():
			case len(refused) == 0 && waived(res, s.State, c):
			case len(refused) == 0:
				t.Fatalf("pool %d: CDI %s, the plan refuses no CDI guard (all %v); %s", i, c.Verdict.Outcome, res.Refusals, c)
			case excused(refused, c):
			default:
				t.Fatalf("pool %d: CDI %s, the plan refuses %v; %s\n%v", i, c.Verdict.Outcome, refused, c, res.Refusals)
			}
		}
	})
}

// excused says whether a plan refused where CDI clones or waits is one of
// TestRefusedIffCDIWouldNotClone's exceptions.
func excused(refused []guard.Reason, c cdiCase) bool {
	if slices.Contains(refused, guard.StorageClassMismatch) {
		return true
	}
	switch c.Verdict.Reason {
	case waitSizeInfo, waitNoSource:
		// The golden's PVC is not bound yet: the planner judges it as it
		// will be once bound at the size it requests, and refuses now the
		// copy or the failure CDI meets then
		// (TestPendingGoldenPredictionHoldsAfterBind holds it to that).
		for _, r := range refused {
			if r != guard.HostAssistedClone && r != guard.DiskSmallerThanGolden {
				return false
			}
		}
		return c.Verdict.Outcome == cdiWaits
	case waitSnapshotClassNotFound, waitClaimRef, waitActiveCDI:
		// Waiting, CDI has picked no strategy yet: what it meets once it
		// picks one is refused now.
		for _, r := range refused {
			switch {
			case r == guard.HostAssistedClone:
			case r == guard.DiskUnrenderable && c.Verdict.UnknownStrategy:
			case r == guard.DiskSmallerThanGolden && c.Verdict.ImageMayNotFit:
			default:
				return false
			}
		}
		return c.Verdict.Outcome == cdiWaits
	}
	return false
}

// TestCDIOracleCoverage: the scenarios the CDI properties draw reach every
// outcome of cdiDecide and every host-assisted cause, each also as the one CDI
// reports first, and clones CDI makes are a good share of them (a sixth or more
// of the builtin pools, whatever their pool or catalog). Drawn by seed, so that
// the figures (logged with -v) do not depend on -rapid.checks.
func TestCDIOracleCoverage(t *testing.T) {
	const draws = 2000
	scenarios := rapid.Custom(wellFormedScenario)
	outcomes, causes, firsts := map[cdiOutcome]int{}, map[string]int{}, map[string]int{}
	cases, agreeing := 0, 0
	for seed := range draws {
		s := scenarios.Example(seed)
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		for _, p := range s.Pools {
			c, ok := cdiCaseOf(s, cat, snap, p)
			if !ok {
				continue
			}
			cases++
			outcomes[c.Verdict.Outcome]++
			if !c.ClassesAgree {
				continue
			}
			agreeing++
			for _, x := range c.Verdict.Causes {
				causes[x]++
			}
			if c.Verdict.First != "" {
				firsts[c.Verdict.First]++
			}
		}
	}
	t.Logf("%d scenarios, %d builtin pools judged, %d on the golden's class; outcomes %v; causes %v; first %v", draws, cases, agreeing, outcomes, causes, firsts)
	for _, o := range []cdiOutcome{cdiRejected, cdiNeverRenders, cdiWaits, cdiHostAssisted, cdiFails, cdiCSIClone, cdiSnapshot} {
		if outcomes[o] == 0 {
			t.Errorf("no draw of %d reaches CDI outcome %s", draws, o)
		}
	}
	for _, x := range hostAssistedCauses {
		if causes[x] == 0 || firsts[x] == 0 {
			t.Errorf("no draw of %d has cause %s (%d) or reports it first (%d)", draws, x, causes[x], firsts[x])
		}
	}
	if clones := outcomes[cdiCSIClone] + outcomes[cdiSnapshot]; 6*clones < cases {
		t.Errorf("%d of %d pools cloned by CDI; want a sixth or more", clones, cases)
	}
}
