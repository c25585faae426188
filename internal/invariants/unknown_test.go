package invariants_test

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestUnknownIsNeitherAbsentNorPresent (invariant 6):
// turning observed kinds into unknown ones (kinds dropped from
// State.Observed, their objects dropped or not; or the namespaced kinds
// scoped to some namespaces, the goldens read by name or not) never adds a
// refusal that rests on something being absent, and never grants a waiver
// that rests on something being present, whether the catalog comes from
// its values or is read back from the goldens the state shows. So:
//
//   - a refusal that appears rests on what is still observed (see
//     appearedBecause), or is a waiver withdrawn: the pool had warned
//     GoldenUnavailable, and what proved its clone is no longer seen;
//   - GoldenUnavailable (the waiver) is granted only on cloned disks that
//     are still seen;
//   - a refusal that goes away leaves StateUnverified behind;
//   - StateUnverified names only kinds that are not observed.
func TestUnknownIsNeitherAbsentNorPresent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := wellFormedScenario(t)
		less := lessObserved(t, s)
		snap, lessSnap := state.NewSnapshot(s.State), state.NewSnapshot(less)
		cat, lessCat := catalog.Compile(s.Catalog), catalog.Compile(s.Catalog)
		if rapid.Bool().Draw(t, "readBack") {
			// The catalog read back from the goldens sees less of them too.
			cat, _ = catalog.FromCluster(snap)
			lessCat, _ = catalog.FromCluster(lessSnap)
		}
		before := plan.PlanAll(s.Pools, cat, snap)
		after := plan.PlanAll(s.Pools, lessCat, lessSnap)
		unknown := func() string { return describeObserved(less) }

		for i, p := range s.Pools {
			r0, r1 := refusals(before[i].Refusals.Err()), refusals(after[i].Refusals.Err())
			for _, f := range minus(r1, r0) {
				if appearedBecause(f, p, before[i], lessCat, less, s.State) == "" {
					t.Fatalf("pool %d: %s appeared when %s (refusals %v, then %v; %v then %v; golden %s)", i, f, unknown(), r0, r1,
						before[i].StorageClass, after[i].Refusals, describeGolden(s.State, goldenOf(p)))
				}
			}
			if hasReason(after[i].Warnings, guard.GoldenUnavailable) && !clonedSeen(less, p) {
				t.Fatalf("pool %d: a waiver was granted on disks that are not seen, when %s", i, unknown())
			}
			if gone := minus(r0, r1); len(gone) > 0 && !hasReason(after[i].Warnings, guard.StateUnverified) {
				t.Fatalf("pool %d: %v went away without StateUnverified when %s", i, gone, unknown())
			}
			for _, k := range unverified(after[i].Warnings).Each() {
				if stateindex.Of(lessSnap).Observed(k) {
					t.Fatalf("pool %d: StateUnverified names %s, which was observed (%s)", i, k, unknown())
				}
			}
		}
	})
}

// lessObserved is s's state with less of it observed: some kinds unknown,
// their objects dropped (as an adapter that could not read them has none)
// or not (the snapshot must ignore them), or the namespaced kinds read in
// some namespaces only, each pool's golden read by name or not, and its
// PVC's volume read by name (the volumes not listed) or not.
func lessObserved(t *rapid.T, s plantest.Scenario) *state.State {
	less := plantest.CopyState(s.State)
	if rapid.Bool().Draw(t, "scope") {
		all := append([]string{naming.GoldenNamespace}, s.Vocabulary.Namespaces...)
		less.Namespaces = rapid.SliceOfDistinct(rapid.SampledFrom(all), rapid.ID[string]).Draw(t, "namespaces")
		if less.Namespaces == nil {
			less.Namespaces = []string{}
		}
		for _, p := range s.Pools {
			if name := goldenOf(p); name != "" && rapid.Bool().Draw(t, "goldenReadByName") {
				less.Objects = append(less.Objects,
					state.Ref{Kind: state.DataVolume, Namespace: naming.GoldenNamespace, Name: name},
					state.Ref{Kind: state.PersistentVolumeClaim, Namespace: naming.GoldenNamespace, Name: name})
				if v := goldenVolumeName(less, name); v != "" && rapid.Bool().Draw(t, "goldenVolumeReadByName") {
					less.Observed &^= state.PersistentVolume
					less.Objects = append(less.Objects, state.Ref{Kind: state.PersistentVolume, Name: v})
				}
			}
		}
		return less
	}
	for _, k := range state.AllKinds.Each() {
		if rapid.Bool().Draw(t, "unknown"+k.String()) {
			less.Observed &^= k
		}
	}
	if rapid.Bool().Draw(t, "dropObjects") {
		dropUnobserved(less)
	}
	return less
}

// appearedBecause says what a refusal that appeared rests on, "" when
// nothing justifies it.
func appearedBecause(f finding, p plan.Pool, before plan.Result, cat *catalog.Catalog, less, full *state.State) string {
	switch {
	case (f == findingOf(guard.GoldenNotInCatalog, "osImage.builtin", "") || f == findingOf(guard.GoldenImportFailed, "osImage.builtin", "")) &&
		hasReason(before.Warnings, guard.GoldenUnavailable):
		return "a waiver withdrawn: the disks that proved the pool's clone are not seen"
	case hasReason(before.Warnings, guard.GoldenUnavailable) && !goldenExists(full, goldenOf(p)) &&
		(f == findingOf(guard.HostAssistedClone, "storageClass", "") || f == findingOf(guard.StorageClassMismatch, "storageClass", "") ||
			f == findingOf(guard.DiskSmallerThanGolden, "diskSize", "") || f == findingOf(guard.DiskUnrenderable, "storageClass", "")):
		// A pool that cloned a golden now gone is not checked against
		// it (there is nothing to clone until it is back); unseen, those
		// disks no longer waive the checks of a clone from it.
		return "a waiver withdrawn: the golden is gone, and the disks cloned from it are not seen"
	case (f == findingOf(guard.DiskUnrenderable, "storageClass", "") || f == findingOf(guard.DiskUnrenderable, "diskSize", "") ||
		f == findingOf(guard.StorageClassNotFound, "storageClass", "")) && unrenderableSeen(p, less):
		return "CDI never renders the disk's PVC, as what is still observed shows"
	case f == findingOf(guard.DiskSmallerThanGolden, "diskSize", "") && smallerThanSeen(p, less):
		return "the disk is smaller than a size of the golden that is still observed"
	case classRefused(before.Refusals.Err()) && f == findingOf(guard.DiskUnrenderable, "storageClass", "") && unknownStrategySeen(p, less):
		// A clone strategy CDI does not know fails the clone for good; it
		// is checked with the host-assisted causes, once both classes are
		// resolved and agree, and rests on what is still observed (the
		// CDI override, or the disk class's StorageProfile), which the
		// class refusal, now unverified, hid.
		return "a clone strategy CDI does not know, no longer hidden by a class refusal"
	case classRefused(before.Refusals.Err()) && f == findingOf(guard.HostAssistedClone, "storageClass", ""):
		// The host-assisted causes are checked once both classes are
		// resolved and agree; they rest on the class's observed objects,
		// which the class refusal, now unverified, hid.
		return "a cause on the disk's class, no longer hidden by a class refusal"
	case classRefused(before.Refusals.Err()) && (f == findingOf(guard.StorageClassMismatch, "storageClass", "") ||
		f == findingOf(guard.FrozenStorageClassConflict, "storageClass", "") || f == findingOf(guard.DefaultStorageClassUnresolvable, "storageClass", "")):
		return "the class comparison refused before, and refuses on what is still seen"
	}
	return knownGap(f, p, cat, less)
}

// classRefused reports whether the class comparison was refused.
func classRefused(err error) bool {
	return errors.Is(err, guard.StorageClassMismatch) || errors.Is(err, guard.FrozenStorageClassConflict) ||
		errors.Is(err, guard.DefaultStorageClassUnresolvable)
}

// clonedSeen reports whether the state shows, where it observes, a disk of
// the pool that has cloned its golden: a succeeded DataVolume or a bound
// PVC in the pool's namespace carrying both annotations.
func clonedSeen(st *state.State, p plan.Pool) bool {
	snap := state.NewSnapshot(st)
	golden, pool := goldenOf(p), naming.PoolCAPIName(p.Name)
	ours := func(m *metav1.ObjectMeta) bool {
		return m.Namespace == p.Namespace && m.Annotations[naming.GoldenAnnotation] == golden && m.Annotations[naming.PoolAnnotation] == pool
	}
	for _, d := range st.DataVolumes {
		if ours(&d.ObjectMeta) && d.Status.Phase == cdiv1.Succeeded && stateindex.Of(snap).Covers(state.DataVolume, d.Namespace, d.Name) {
			return true
		}
	}
	for _, c := range st.PersistentVolumeClaims {
		if ours(&c.ObjectMeta) && c.Status.Phase == corev1.ClaimBound && stateindex.Of(snap).Covers(state.PersistentVolumeClaim, c.Namespace, c.Name) {
			return true
		}
	}
	return false
}

// goldenExists reports whether the golden's DataVolume or PVC is in st.
func goldenExists(st *state.State, name string) bool {
	for _, d := range st.DataVolumes {
		if d.Namespace == naming.GoldenNamespace && d.Name == name {
			return true
		}
	}
	for _, p := range st.PersistentVolumeClaims {
		if p.Namespace == naming.GoldenNamespace && p.Name == name {
			return true
		}
	}
	return false
}

// goldenVolumeName is the volume the golden's PVC names, "" for none.
func goldenVolumeName(st *state.State, name string) string {
	for _, p := range st.PersistentVolumeClaims {
		if p.Namespace == naming.GoldenNamespace && p.Name == name {
			return p.Spec.VolumeName
		}
	}
	return ""
}

// goldenOf is the name of the golden a builtin pool clones, "" for
// another pool.
func goldenOf(p plan.Pool) string {
	f, ok := plantest.Flavor(p)
	if !ok {
		return ""
	}
	name, _ := naming.GoldenName(f.SchematicID, f.Version, nil, nil)
	return name
}

// dropUnobserved removes the objects of the kinds s does not observe.
func dropUnobserved(s *state.State) {
	if !s.Observed.Has(state.StorageClass) {
		s.StorageClasses = nil
	}
	if !s.Observed.Has(state.PersistentVolumeClaim) {
		s.PersistentVolumeClaims = nil
	}
	if !s.Observed.Has(state.DataVolume) {
		s.DataVolumes = nil
	}
	if !s.Observed.Has(state.StorageProfile) {
		s.StorageProfiles = nil
	}
	if !s.Observed.Has(state.CDI) {
		s.CDIs = nil
	}
	if !s.Observed.Has(state.CSIDriver) {
		s.CSIDrivers = nil
	}
	if !s.Observed.Has(state.VolumeSnapshotClass) {
		s.VolumeSnapshotClasses = nil
	}
	if !s.Observed.Has(state.CDIConfig) {
		s.CDIConfigs = nil
	}
	if !s.Observed.Has(state.PersistentVolume) {
		s.PersistentVolumes = nil
	}
}

// unrenderableSeen reports whether what st observes shows that CDI never
// renders the pool's disk: its class (the pool's, else the one its cloned
// disks are on, else the default, when the StorageClasses are observed)
// missing, its StorageProfile missing or without a first claim property
// set with access modes, no CDIConfig, or a size under 1MiB.
func unrenderableSeen(p plan.Pool, st *state.State) bool {
	snap := state.NewSnapshot(st)
	c := cluster{st}
	size := p.Spec.DiskSize
	if size == "" {
		size = chartdefaults.DiskSize
	}
	if q, err := resource.ParseQuantity(size); err == nil && q.Sign() > 0 && q.Value() < mebibyte {
		return true
	}
	class := diskClass(p, st)
	if class == "" {
		return false
	}
	if stateindex.Of(snap).Observed(state.StorageClass) && c.storageClass(class) == nil {
		return true
	}
	if sp := c.profile(class); stateindex.Of(snap).Observed(state.StorageProfile) &&
		(sp == nil || len(sp.Status.ClaimPropertySets) == 0 || len(sp.Status.ClaimPropertySets[0].AccessModes) == 0) {
		return true
	}
	return stateindex.Of(snap).Observed(state.CDIConfig) && c.config() == nil
}

// diskClass is the class the pool's disk is on, as far as st shows it: the
// pool's own, else the one its cloned disks are frozen on, else the
// cluster's default; "" when st does not say.
func diskClass(p plan.Pool, st *state.State) string {
	if p.Spec.StorageClass != "" {
		return p.Spec.StorageClass
	}
	snap := state.NewSnapshot(st)
	if cloned := stateindex.Of(snap).ClonedClasses(p.Namespace, naming.PoolCAPIName(p.Name), goldenOf(p)); len(cloned) == 1 {
		return cloned[0]
	}
	if stateindex.Of(snap).Observed(state.StorageClass) {
		if sc := (cluster{st}).defaultClass(true); sc != nil {
			return sc.Name
		}
	}
	return ""
}

// unknownStrategySeen reports whether st, where it observes, shows the
// clone strategy of the pool's disk to be one CDI does not know: the CDI
// resource's cloneStrategyOverride, or without one the disk class's
// StorageProfile's status.cloneStrategy.
func unknownStrategySeen(p plan.Pool, st *state.State) bool {
	snap := state.NewSnapshot(st)
	known := func(s cdiv1.CDICloneStrategy) bool {
		return s == cdiv1.CloneStrategyCsiClone || s == cdiv1.CloneStrategySnapshot || s == cdiv1.CloneStrategyHostAssisted
	}
	if !stateindex.Of(snap).Observed(state.CDI) {
		return false
	}
	if cdis := (cluster{st}).activeCDIs(); len(cdis) == 1 && cdis[0].Spec.CloneStrategyOverride != nil {
		return !known(*cdis[0].Spec.CloneStrategyOverride)
	}
	class := diskClass(p, st)
	if !stateindex.Of(snap).Observed(state.StorageProfile) || class == "" {
		return false
	}
	sp := (cluster{st}).profile(class)
	return sp != nil && sp.Status.CloneStrategy != nil && !known(*sp.Status.CloneStrategy)
}

// TestUnseenDisksProveNoSize (invariant 6, a case the property found): a
// pool at an empty class whose disks are frozen on a Filesystem class with
// CDI's 6% overhead, cloning a Filesystem golden of the same inflated
// size, is planned; with the pool's namespace unobserved (the golden read
// by name, as an adapter does) its class rests on the default, on which no
// overhead is added, and a size refusal there would rest on the unseen
// disks being absent: the plan may warn, not refuse.
func TestUnseenDisksProveNoSize(t *testing.T) {
	const ns, pool = "tenant-a", "demo-md0"
	fs := corev1.PersistentVolumeFilesystem
	golden := fixtures.GoldenClaim(caseID, chartdefaults.Version).Class("frozen").Size("6828998001").VolumeMode(fs).Obj()
	golden.Annotations[contentTypeAnnotation] = "kubevirt"
	config := fixtures.CDIConfig(fixtures.DefaultOverhead, "frozen")
	config.Status.FilesystemOverhead.StorageClass["plain"] = "0"
	objs := []client.Object{
		fixtures.StorageClass("frozen").Provisioner(caseDriver).Expansion(true).Obj(),
		fixtures.StorageClass("plain").Provisioner(caseDriver).Expansion(true).Default().Obj(),
		fixtures.Driver(caseDriver), fixtures.CDI(ptr.To(cdiv1.CloneStrategyCsiClone)), config,
		fixtures.StorageProfile("frozen").Provisioner(caseDriver).VolumeMode(fs).Obj(),
		fixtures.StorageProfile("plain").Provisioner(caseDriver).VolumeMode(fs).Obj(),
		caseDataVolume(cdiv1.Succeeded), golden,
		fixtures.WorkerDataVolume(ns, pool+"-abcde-disk-system", pool, caseGolden, "frozen", cdiv1.Succeeded),
	}
	spec := plan.DefaultPoolSpec("demo")
	spec.DiskSize, spec.StorageClass = "6Gi", ""
	spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: caseID}}
	p := plan.Pool{Namespace: ns, Name: pool, Spec: spec}
	v := catalog.Default()
	v.Enabled, v.StorageClass, v.Images = true, "", []catalog.Image{{Flavor: catalog.Flavor{SchematicID: caseID, Version: chartdefaults.Version}}}
	cat := catalog.Compile(v)

	full := fixtures.State(state.AllKinds, objs...)
	if res, err := plan.Plan(p, cat, state.NewSnapshot(full)); err != nil {
		t.Fatalf("fully observed, the pool's disks freeze its class and it plans: %v", res.Refusals)
	}
	less := fixtures.State(state.AllKinds, objs...)
	less.Namespaces = []string{naming.GoldenNamespace}
	res, err := plan.Plan(p, cat, state.NewSnapshot(less))
	if err != nil {
		t.Errorf("with the pool's disks unseen, refused %v; want StateUnverified only", refusals(err))
	}
	if unverified(res.Warnings)&(state.DataVolume|state.PersistentVolumeClaim) == 0 {
		t.Errorf("nothing says the pool's disks were not observed: %v", res.Warnings)
	}
}
