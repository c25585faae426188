package cloneguard

import (
	"fmt"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// copyCause is one proven cause for which CDI v1.64.0 copies the golden
// over the pod network (host-assisted) instead of cloning it at the
// storage layer: the reason CDI gives, the fact, and the way out.
type copyCause struct {
	reason, why, fix string
	// claim: the cause rests on the golden's PVC, which may be predicted.
	claim bool
}

// hostAssisted is what CDI's path and strategy make of the clone, whatever
// classes the two sides are on: CDI compares drivers, volume modes and
// sizes, never classes, so each cause holds across classes too.
type hostAssisted struct {
	causes []copyCause
	// unobserved are the kinds a cause rests on that were not read: what
	// is unknown proves nothing.
	unobserved state.Kind
	// copies: the path or the strategy alone is a copy (no CSIDriver, or
	// the strategy copy): CDI never reads the golden's volume.
	copies bool
	// strategy is CDI's clone strategy, when known; unknownStrategy: a
	// strategy CDI does not know, which fails the clone for good.
	strategy        cdiv1.CDICloneStrategy
	from            strategyOrigin
	unknownStrategy bool
}

// checkHostAssisted refuses every proven cause for which CDI would copy the
// golden host-assisted, one refusal per cause, in CDI's order, each naming
// the reason CDI gives. What is unknown proves nothing: the kind is
// StateUnverified. It runs when both sides are on one class; across
// classes the causes are StorageClassMismatch's consequence.
func (j *judge) checkHostAssisted() {
	h := j.copyCauses()
	j.note(&h)
	j.v.Unverified |= h.unobserved
	for _, c := range h.causes {
		j.c.Refuse(guard.HostAssistedClone, j.req.Paths.Class, j.v.Class.Name,
			"CDI would copy %s over the pod network instead of cloning it at the storage layer (%s): %s; %s%s",
			j.source(), c.reason, c.why, c.fix, j.predictedNote(c.claim))
	}
	j.checkStrategyKnown(&h)
	j.warnClaimRef(&h)
}

// copyCauses states the causes of a host-assisted copy the state proves,
// in CDI's order, without refusing.
func (j *judge) copyCauses() hostAssisted {
	var h hostAssisted
	class := j.v.Class.Name
	sc := j.v.Disk.Class
	if sc == nil {
		return h // not observed, or StorageClassNotFound already says it
	}
	add := func(claim bool, reason, why, fix string) {
		h.causes = append(h.causes, copyCause{reason: reason, why: why, fix: fix, claim: claim})
	}

	// The path: CDI's clone populator runs only for a class whose
	// provisioner has a CSIDriver, unless the DataVolume's usePopulator
	// annotation says otherwise; off it, CDI copies, always
	// (CDI v1.64.0 pkg/controller/datavolume/controller-base.go: shouldUseCDIPopulator,
	// CDI v1.64.0 pkg/controller/datavolume/util.go: storageClassCSIDriverExists;
	// pkg/controller/datavolume/pvc-clone-controller.go: fallbackToHostAssisted).
	switch {
	case j.req.Populator == PopulatorOff:
		h.copies = true
		add(false, "usePopulator \"false\": CDI's clone without populators copies host-assisted",
			"the DataVolume's annotation "+naming.UsePopulatorAnnotation+" is \"false\"", "remove the annotation")
	case j.req.Populator == PopulatorOn:
		// The populator runs whatever the class's driver.
	case !j.ix.Observed(state.CSIDriver):
		h.unobserved |= state.CSIDriver
	case j.ix.CSIDriver(sc.Provisioner) == nil:
		h.copies = true
		add(false, "NoPopulator: \"In tree storage class does not support snapshot/clone\"",
			fmt.Sprintf("class %q's provisioner %q has no CSIDriver", class, sc.Provisioner), "use a class of a CSI driver")
	}

	// 1. The strategy (CDI v1.64.0 pkg/controller/clone/planner.go:
	// computeStrategyForSourcePVC, CDI v1.64.0 pkg/controller/clone/common.go:
	// GetGlobalCloneStrategyOverride).
	strategy, from, unread := j.cloneStrategy()
	h.unobserved |= unread
	h.strategy, h.from = strategy, from
	switch {
	case unread != 0:
	case strategy == cdiv1.CloneStrategyHostAssisted:
		h.copies = true
		add(false, "cloneStrategy copy", j.strategyFrom(from)+" is copy", "set it to csi-clone (Cozystack's CDI override) or snapshot")
	case strategy == cdiv1.CloneStrategySnapshot || strategy == cdiv1.CloneStrategyCsiClone:
	default:
		h.unknownStrategy = true
	}

	// 3. One CSI driver for both volumes (CDI v1.64.0 pkg/controller/clone/common.go:
	// GetCommonDriver): whatever the strategy, a copy is what is left.
	// Under the snapshot strategy CDI looks for a VolumeSnapshotClass of
	// that driver first, and reports its absence
	// (GetCompatibleVolumeSnapshotClass).
	driverReason := "IncompatibleProvisioners: \"Provisioners are incompatible\""
	if strategy == cdiv1.CloneStrategySnapshot {
		driverReason = "NoVolumeSnapshotClass: \"No compatible volumesnapshotclass found\""
	}
	common := ""
	g := &j.claim
	h.unobserved |= g.driver.Unobserved
	switch {
	case !g.known || !g.driver.Known():
		// Unseen, or the golden's volume does not point back at it and
		// CDI retries (warnClaimRef).
	case g.driver.Name == "":
		add(true, driverReason,
			fmt.Sprintf("the %s's PVC has no CSI driver (no class, and no CSI volume) while the disk's is %q", j.noun(), sc.Provisioner), fmt.Sprintf("re-create the %s on class %q", j.noun(), class))
	case g.driver.Name != sc.Provisioner:
		add(true, driverReason,
			fmt.Sprintf("the %s's volume is on CSI driver %q and the disk's class %q on %q", j.noun(), g.driver.Name, class, sc.Provisioner), fmt.Sprintf("re-create the %s on class %q", j.noun(), class))
	default:
		common = g.driver.Name
	}

	// 2. The snapshot strategy needs a VolumeSnapshotClass of that driver.
	if strategy == cdiv1.CloneStrategySnapshot && unread == 0 && common != "" {
		j.snapshotClassCause(common, from, &h)
	}

	// 4. The volume modes (CDI v1.64.0 pkg/controller/clone/common.go: SameVolumeMode).
	if g.known && j.v.Disk.ModeKnown && g.mode != j.v.Disk.Mode {
		add(true, "IncompatibleVolumeModes: \"The volume modes of source and target are incompatible\"",
			fmt.Sprintf("the disk would be %s (StorageProfile %s's first claim property set) while the %s's PVC is %s", j.v.Disk.Mode, j.v.Disk.Profile.Name, j.noun(), g.mode),
			"align the StorageProfile's claimPropertySets with the "+j.noun()+"'s volume mode")
	}

	// 5. A smaller golden is expanded after the clone, which needs the
	// disk's class to allow it (CDI v1.64.0 pkg/controller/clone/planner.go:
	// validateAdvancedClonePVC).
	if g.capacityKnown && j.v.Disk.RequestKnown && g.capacity.Cmp(j.v.Disk.Request) < 0 &&
		(sc.AllowVolumeExpansion == nil || !*sc.AllowVolumeExpansion) {
		add(true, "NoVolumeExpansion: \"No volume expansion is possible\"",
			fmt.Sprintf("the disk's request (%s) is larger than the %s's capacity (%s) and class %q does not allow volume expansion", j.v.Disk.Request.String(), j.noun(), g.capacity.String(), class),
			"set allowVolumeExpansion: true on it, or set "+j.req.Words.SizeField+" to the "+j.noun()+"'s size")
	}
	return h
}

// checkStrategyKnown refuses a strategy CDI does not know (a class
// annotated cdi.kubevirt.io/clone-strategy with another value gives its
// profile ""): CDI renders the disk's PVC and fails its clone for good,
// "unknown strategy/source" (CDI v1.64.0 pkg/controller/clone/planner.go: Plan).
func (j *judge) checkStrategyKnown(h *hostAssisted) {
	if !h.unknownStrategy {
		return
	}
	j.c.Refuse(guard.DiskUnrenderable, j.req.Paths.Class, j.v.Class.Name,
		"CDI renders the disk's PVC but fails its clone for good: %s is %q, not a strategy CDI knows (\"unknown strategy/source\"); set the class's cdi.kubevirt.io/clone-strategy annotation to csi-clone, snapshot or copy, or remove it",
		j.strategyFrom(h.from), h.strategy)
}

// warnClaimRef warns GoldenPending while the golden's volume names another
// claim: CDI's clone populator reads the golden's driver from its volume,
// errors and retries for ever ("pvc does not match volume claim ref",
// CDI v1.64.0 pkg/controller/clone/common.go: GetDriverFromVolume), and the disks wait; a
// copy the path or the strategy already takes never reads the volume.
func (j *judge) warnClaimRef(h *hostAssisted) {
	if !j.claim.driver.Waits || h.copies {
		return
	}
	j.v.Waits = true
	pvc := j.v.Source.PVC
	ref := "another claim"
	if pv := j.ix.PersistentVolume(pvc.Spec.VolumeName); pv != nil && pv.Spec.ClaimRef != nil {
		ref = pv.Spec.ClaimRef.Namespace + "/" + pv.Spec.ClaimRef.Name
	}
	j.c.Warn(guard.GoldenPending, j.req.Paths.Source,
		"%s's PVC names volume %s, whose claimRef names %s: CDI's clone errors and retries for ever (\"pvc does not match volume claim ref\") and %s never get their data; bind the %s's PVC to a volume of its own, or re-create the %s",
		j.source(), pvc.Spec.VolumeName, ref, j.req.Words.Disks, j.noun(), j.noun())
}

// predictedNote marks a finding that rests on the golden's PVC CDI has not
// bound yet: what it says is predicted from what CDI will render for it.
func (j *judge) predictedNote(claim bool) string {
	if !claim || !j.claim.predicted {
		return ""
	}
	return fmt.Sprintf(" (predicted: %s's PVC is not bound yet; this is the PVC CDI will render for it, %s %s on class %q, bound at that size)",
		j.source(), j.claim.mode, j.claim.request.String(), j.claim.class)
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
// It reports where the strategy came from, and the kinds it could not read
// (then the strategy is unknown).
func (j *judge) cloneStrategy() (cdiv1.CDICloneStrategy, strategyOrigin, state.Kind) {
	if !j.ix.Observed(state.CDI) {
		// The override, if any, overrules the profile: a profile's
		// strategy proves nothing while the override is unknown.
		return "", fromDefault, state.CDI
	}
	if c := j.ix.CDI(); c != nil && c.Spec.CloneStrategyOverride != nil {
		return *c.Spec.CloneStrategyOverride, fromOverride, 0
	}
	if !j.ix.Observed(state.StorageProfile) {
		return "", fromDefault, state.StorageProfile
	}
	if sp := j.v.Disk.Profile; sp != nil && sp.Status.CloneStrategy != nil {
		return *sp.Status.CloneStrategy, fromProfile, 0
	}
	return cdiv1.CloneStrategySnapshot, fromDefault, 0
}

// strategyFrom says where the strategy came from, for a refusal.
func (j *judge) strategyFrom(o strategyOrigin) string {
	switch o {
	case fromOverride:
		return "the CDI resource " + j.ix.CDI().Name + "'s cloneStrategyOverride"
	case fromProfile:
		return "StorageProfile " + j.v.Disk.Profile.Name + "'s status.cloneStrategy"
	}
	return "CDI's default strategy"
}

// snapshotClassCause adds the cause of a snapshot clone without a
// VolumeSnapshotClass of the common driver (CDI v1.64.0 pkg/controller/clone/common.go:
// GetCompatibleVolumeSnapshotClass, getCommonSnapshotClass): the class both
// the golden's and the disk's StorageProfiles name in
// status.snapshotClass, when they name the same one, which must then be of
// the driver; else the driver's default, else its first by name.
func (j *judge) snapshotClassCause(driver string, origin strategyOrigin, h *hostAssisted) {
	if !j.ix.Observed(state.VolumeSnapshotClass) {
		h.unobserved |= state.VolumeSnapshotClass
		return
	}
	const reason = "NoVolumeSnapshotClass: \"No compatible volumesnapshotclass found\""
	named := ""
	// A golden PVC that names no class at all takes the Kubernetes
	// default class's profile; one that names "" is looked up by that
	// name, and has none (CDI v1.64.0 pkg/controller/clone/common.go:
	// getSnapshotClassForClaim, GetStorageClassByNameWithK8sFallback).
	goldenClass := j.claim.class
	if j.claim.classNil {
		goldenClass = j.ix.KubernetesDefaultClass()
	}
	if dp, gp := j.v.Disk.Profile, j.ix.StorageProfile(goldenClass); dp != nil && gp != nil &&
		dp.Status.SnapshotClass != nil && gp.Status.SnapshotClass != nil && *dp.Status.SnapshotClass == *gp.Status.SnapshotClass {
		named = *dp.Status.SnapshotClass
	}
	switch {
	case named != "":
		vsc := j.ix.VolumeSnapshotClass(named)
		if vsc == nil {
			return // CDI errors and retries; nothing is copied
		}
		if vsc.Driver != driver {
			h.causes = append(h.causes, copyCause{reason: reason, claim: true,
				why: fmt.Sprintf("%s is snapshot and the StorageProfiles name VolumeSnapshotClass %q, of driver %q rather than %q", j.strategyFrom(origin), named, vsc.Driver, driver),
				fix: fmt.Sprintf("name a class of %q in the StorageProfiles, or set the strategy to csi-clone", driver)})
		}
	case j.ix.SnapshotClassOf(driver) == "":
		h.causes = append(h.causes, copyCause{reason: reason, claim: true,
			why: fmt.Sprintf("%s is snapshot and no VolumeSnapshotClass is of driver %q", j.strategyFrom(origin), driver),
			fix: "create one, or set the strategy to csi-clone"})
	}
}

// note keeps what CDI's path and strategy make of the clone on the
// verdict, once they were read: the strategy, and the reasons CDI copies.
func (j *judge) note(h *hostAssisted) {
	if h.unobserved != 0 || h.unknownStrategy || h.strategy == "" {
		return
	}
	if len(h.causes) == 0 && (!j.claim.known || !j.claim.driver.Known()) {
		return // no copy proven, and the source's driver unknown
	}
	j.v.Judged, j.v.Strategy = true, h.strategy
	for _, c := range h.causes {
		j.v.Causes = append(j.v.Causes, c.reason)
	}
}
