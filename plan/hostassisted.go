package plan

import (
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// checkHostAssisted refuses every proven cause for which CDI v1.64.0 would
// copy the golden over the pod network (host-assisted) instead of cloning
// it at the storage layer, one refusal per cause, in CDI's order, each
// naming the reason CDI gives. What is unknown proves nothing: the kind is
// StateUnverified. It runs when both sides are on one class.
func (p *planner) checkHostAssisted(cl *clone) {
	class := cl.workerClass.Name
	copyCause := func(cdiReason, format string, args ...any) {
		p.c.Refuse(guard.HostAssistedClone, pathStorageClass, class,
			"CDI would copy golden %s over the pod network instead of cloning it at the storage layer (%s): "+format,
			append([]any{cl.golden.Name, cdiReason}, args...)...)
	}
	sc := cl.disk.Class
	if sc == nil {
		return // not observed, or StorageClassNotFound already says it
	}

	// The path: CDI's clone populator runs only for a class whose
	// provisioner has a CSIDriver; otherwise CDI copies, always
	// (controller/datavolume/controller-base.go shouldUseCDIPopulator,
	// controller/datavolume/util.go storageClassCSIDriverExists).
	switch {
	case !p.snap.Observed(state.CSIDriver):
		p.unverified |= state.CSIDriver
	case p.snap.CSIDriver(sc.Provisioner) == nil:
		copyCause("NoPopulator: \"In tree storage class does not support snapshot/clone\"",
			"class %q's provisioner %q has no CSIDriver; use a class of a CSI driver", class, sc.Provisioner)
	}

	// 1. The strategy (controller/clone/planner.go
	// computeStrategyForSourcePVC, controller/clone/common.go
	// GetGlobalCloneStrategyOverride).
	strategy, from, known := p.cloneStrategy(cl)
	switch {
	case !known:
	case strategy == cdiv1.CloneStrategyHostAssisted:
		copyCause("cloneStrategy copy", "%s is copy; set it to csi-clone (Cozystack's CDI override) or snapshot", p.strategyFrom(from, cl))
	case strategy == cdiv1.CloneStrategySnapshot || strategy == cdiv1.CloneStrategyCsiClone:
	default:
		// A strategy CDI does not know (a class annotated
		// cdi.kubevirt.io/clone-strategy with another value gives its
		// profile ""): CDI's clone fails for good, "unknown
		// strategy/source" (controller/clone/planner.go Plan).
		p.c.Refuse(guard.DiskUnrenderable, pathStorageClass, class,
			"CDI renders the disk's PVC but fails its clone for good: %s is %q, not a strategy CDI knows (\"unknown strategy/source\"); set the class's cdi.kubevirt.io/clone-strategy annotation to csi-clone, snapshot or copy, or remove it",
			p.strategyFrom(from, cl), strategy)
	}

	// 3. One CSI driver for both volumes (controller/clone/common.go
	// GetCommonDriver): whatever the strategy, a copy is what is left.
	// Under the snapshot strategy CDI looks for a VolumeSnapshotClass of
	// that driver first, and reports its absence
	// (GetCompatibleVolumeSnapshotClass).
	driverReason := "IncompatibleProvisioners: \"Provisioners are incompatible\""
	if strategy == cdiv1.CloneStrategySnapshot {
		driverReason = "NoVolumeSnapshotClass: \"No compatible volumesnapshotclass found\""
	}
	common := ""
	g := &cl.claim
	switch {
	case !g.known || !g.driver.Known():
		// Unseen (StateUnverified says so), or the golden's volume does not
		// point back at it and CDI retries.
	case g.driver.Name == "":
		copyCause(driverReason,
			"the golden's PVC has no CSI driver (no class, and no CSI volume) while the disk's is %q; re-create the golden on class %q", sc.Provisioner, class)
	case g.driver.Name != sc.Provisioner:
		copyCause(driverReason,
			"the golden's volume is on CSI driver %q and the disk's class %q on %q; re-create the golden on class %q", g.driver.Name, class, sc.Provisioner, class)
	default:
		common = g.driver.Name
	}

	// 2. The snapshot strategy needs a VolumeSnapshotClass of that driver.
	if strategy == cdiv1.CloneStrategySnapshot && common != "" {
		p.checkSnapshotClass(cl, common, from, copyCause)
	}

	// 4. The volume modes (controller/clone/common.go SameVolumeMode).
	if g.known && cl.disk.ModeKnown && g.mode != cl.disk.Mode {
		copyCause("IncompatibleVolumeModes: \"The volume modes of source and target are incompatible\"",
			"the disk would be %s (StorageProfile %s's first claim property set) while the golden's PVC is %s; align the StorageProfile's claimPropertySets with the golden's volume mode", cl.disk.Mode, cl.disk.Profile.Name, g.mode)
	}

	// 5. A smaller golden is expanded after the clone, which needs the
	// disk's class to allow it (controller/clone/planner.go
	// validateAdvancedClonePVC).
	if g.capacityKnown && cl.disk.RequestKnown && g.capacity.Cmp(cl.disk.Request) < 0 &&
		(sc.AllowVolumeExpansion == nil || !*sc.AllowVolumeExpansion) {
		copyCause("NoVolumeExpansion: \"No volume expansion is possible\"",
			"the disk's request (%s) is larger than the golden's capacity (%s) and class %q does not allow volume expansion; set allowVolumeExpansion: true on it, or set diskSize to the golden's size",
			cl.disk.Request.String(), g.capacity.String(), class)
	}
}

// strategyOrigin is where CDI's clone strategy came from.
type strategyOrigin int

const (
	fromOverride strategyOrigin = iota
	fromProfile
	fromDefault
)

// cloneStrategy is CDI's: the CDI resource's cloneStrategyOverride, else
// the disk class's StorageProfile status.cloneStrategy (its spec is what an
// admin asked for, not yet reconciled: CDI never reads it), else snapshot.
// It reports whether the strategy is known, and where it came from.
func (p *planner) cloneStrategy(cl *clone) (cdiv1.CDICloneStrategy, strategyOrigin, bool) {
	if !p.snap.Observed(state.CDI) {
		// The override, if any, overrules the profile: a profile's
		// strategy proves nothing while the override is unknown.
		p.unverified |= state.CDI
		return "", fromDefault, false
	}
	if c := p.snap.CDI(); c != nil && c.Spec.CloneStrategyOverride != nil {
		return *c.Spec.CloneStrategyOverride, fromOverride, true
	}
	if !p.snap.Observed(state.StorageProfile) {
		p.unverified |= state.StorageProfile
		return "", fromDefault, false
	}
	if sp := cl.disk.Profile; sp != nil && sp.Status.CloneStrategy != nil {
		return *sp.Status.CloneStrategy, fromProfile, true
	}
	return cdiv1.CloneStrategySnapshot, fromDefault, true
}

// strategyFrom says where the strategy came from, for a refusal.
func (p *planner) strategyFrom(o strategyOrigin, cl *clone) string {
	switch o {
	case fromOverride:
		return "the CDI resource " + p.snap.CDI().Name + "'s cloneStrategyOverride"
	case fromProfile:
		return "StorageProfile " + cl.disk.Profile.Name + "'s status.cloneStrategy"
	}
	return "CDI's default strategy"
}

// checkSnapshotClass refuses a snapshot clone without a VolumeSnapshotClass
// of the common driver (controller/clone/common.go
// GetCompatibleVolumeSnapshotClass, getCommonSnapshotClass): the class both
// the golden's and the disk's StorageProfiles name in
// status.snapshotClass, when they name the same one, which must then be of
// the driver; else the driver's default, else its first by name.
func (p *planner) checkSnapshotClass(cl *clone, driver string, origin strategyOrigin, copyCause func(string, string, ...any)) {
	if !p.snap.Observed(state.VolumeSnapshotClass) {
		p.unverified |= state.VolumeSnapshotClass
		return
	}
	const reason = "NoVolumeSnapshotClass: \"No compatible volumesnapshotclass found\""
	named := ""
	// A golden PVC that names no class at all takes the Kubernetes
	// default class's profile; one that names "" is looked up by that
	// name, and has none (controller/clone/common.go
	// getSnapshotClassForClaim, GetStorageClassByNameWithK8sFallback).
	goldenClass := cl.claim.class
	if cl.claim.classNil {
		goldenClass = p.snap.KubernetesDefaultClass()
	}
	if dp, gp := cl.disk.Profile, p.snap.StorageProfile(goldenClass); dp != nil && gp != nil &&
		dp.Status.SnapshotClass != nil && gp.Status.SnapshotClass != nil && *dp.Status.SnapshotClass == *gp.Status.SnapshotClass {
		named = *dp.Status.SnapshotClass
	}
	switch {
	case named != "":
		vsc := p.snap.VolumeSnapshotClass(named)
		if vsc == nil {
			return // CDI errors and retries; nothing is copied
		}
		if vsc.Driver != driver {
			copyCause(reason, "%s is snapshot and the StorageProfiles name VolumeSnapshotClass %q, of driver %q rather than %q; name a class of %q in the StorageProfiles, or set the strategy to csi-clone",
				p.strategyFrom(origin, cl), named, vsc.Driver, driver, driver)
		}
	case p.snap.SnapshotClassOf(driver) == "":
		copyCause(reason, "%s is snapshot and no VolumeSnapshotClass is of driver %q; create one, or set the strategy to csi-clone", p.strategyFrom(origin, cl), driver)
	}
}
