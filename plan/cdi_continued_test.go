package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The Ceph cluster of the continued measurements against CDI v1.64.0: two
// classes of rbd.csi.ceph.com, "lvm" (the default) and "slow", its
// CSIDriver, Block StorageProfiles (ReadWriteOnce, csi-clone) for both,
// the CDI resource with the given override, CDI's CDIConfig, and the golden
// imported on "slow": its DataVolume succeeded, its PVC a bound Block
// volume of 5Gi on a CSI volume of rbd. Every class expands.
const (
	rbd        = otherDriver
	lvm        = "lvm"
	slow       = "slow"
	rbdVolume  = "pv-golden-rbd"
	goldenSize = "5Gi"
)

func rbdClass(name string) *fixtures.ClassBuilder {
	return fixtures.StorageClass(name).Provisioner(rbd).Expansion(true).Binding(storagev1.VolumeBindingImmediate)
}

func rbdProfile(name string) *fixtures.ProfileBuilder {
	return fixtures.StorageProfile(name).Provisioner(rbd).VolumeMode(corev1.PersistentVolumeBlock).CloneStrategy(cdiv1.CloneStrategyCsiClone)
}

// rbdCluster replaces the base state by the Ceph cluster, with the CDI
// resource's override (nil: none), then applies edits.
func rbdCluster(override *cdiv1.CDICloneStrategy, edits ...func(*state.State)) func(*state.State) {
	return func(s *state.State) {
		claim := fixtures.GoldenClaim(fixtures.DefaultSchematicID, fixtures.DefaultVersion).Class(slow).Size(goldenSize).VolumeName(rbdVolume).Obj()
		objs := []client.Object{
			rbdClass(lvm).Default().Obj(), rbdClass(slow).Obj(),
			rbdProfile(lvm).Obj(), rbdProfile(slow).Obj(),
			fixtures.Driver(rbd),
			fixtures.CDI(override),
			fixtures.CDIConfig(fixtures.DefaultOverhead, lvm, slow),
			fixtures.GoldenVolume(fixtures.DefaultSchematicID, fixtures.DefaultVersion).Class(slow).Size(goldenSize).Obj(),
			claim,
			fixtures.VolumeOf(claim, rbd),
		}
		*s = *fixtures.State(state.AllKinds, objs...)
		all(edits...)(s)
	}
}

func rbdVolumeOf(s *state.State) *corev1.PersistentVolume {
	for i := range s.PersistentVolumes {
		if s.PersistentVolumes[i].Name == rbdVolume {
			return &s.PersistentVolumes[i]
		}
	}
	panic("no golden volume")
}

// says checks a message holds each of yes and none of no.
func says(yes, no []string) func(*testing.T, string) {
	return func(t *testing.T, msg string) {
		for _, s := range yes {
			assert.Contains(t, msg, s)
		}
		for _, s := range no {
			assert.NotContains(t, msg, s)
		}
	}
}

// TestCDICopyCausesAcrossClasses: CDI compares drivers, volume modes and
// sizes, never class names (controller/clone/planner.go
// computeStrategyForSourcePVC, validateAdvancedClonePVC;
// controller/datavolume/util.go storageClassCSIDriverExists), so with two
// classes of one CSI driver each cause of a copy still makes CDI copy over
// the pod network. The refusal stays StorageClassMismatch (one class per
// flavor), and its message says CDI copies and why, in CDI's reason; it
// speaks of a cross-class CSI clone only when no cause holds.
func TestCDICopyCausesAcrossClasses(t *testing.T) {
	mismatch := []finding{f(guard.StorageClassMismatch, "storageClass")}
	copies := func(reason string) func(*testing.T, string) {
		return says([]string{"copy the image over the pod network", reason}, []string{"cross-class"})
	}
	runCDICases(t, map[string]cdiCase{
		"issue example: override copy, pool on the default lvm, golden on slow": {
			reason:   "the strategy copy (the CDI resource's cloneStrategyOverride, controller/clone/common.go GetGlobalCloneStrategyOverride): CDI copies whatever the classes",
			cdi:      "host-assisted",
			pool:     setClass(""),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategyHostAssisted)),
			refusals: mismatch,
			detail:   copies("cloneStrategy copy"),
		},
		"profile copy": {
			reason:   "the disk class's StorageProfile status.cloneStrategy copy, no override",
			cdi:      "host-assisted",
			pool:     setClass(lvm),
			state:    rbdCluster(nil, func(s *state.State) { spOf(s, lvm).Status.CloneStrategy = ptr.To(cdiv1.CloneStrategyHostAssisted) }),
			refusals: mismatch,
			detail:   copies("StorageProfile lvm's status.cloneStrategy is copy"),
		},
		"different volume modes": {
			reason: "the disk renders Filesystem (lvm's profile), the golden is Block: \"The volume modes of source and target are incompatible\" (controller/clone/common.go SameVolumeMode)",
			cdi:    "host-assisted",
			pool:   setClass(lvm),
			state: rbdCluster(ptr.To(cdiv1.CloneStrategyCsiClone), func(s *state.State) {
				spOf(s, lvm).Status.ClaimPropertySets[0].VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
			}),
			refusals: mismatch,
			detail:   copies("IncompatibleVolumeModes"),
		},
		"no CSIDriver": {
			reason:   "no CSIDriver for lvm's provisioner: the DataVolume never goes to the clone populator (controller/datavolume/util.go storageClassCSIDriverExists)",
			cdi:      "host-assisted",
			pool:     setClass(lvm),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategyCsiClone), func(s *state.State) { s.CSIDrivers = nil }),
			refusals: mismatch,
			detail:   copies("NoPopulator"),
		},
		"no room to expand": {
			reason:   "the 20Gi disk on lvm without expansion, the golden's capacity 5Gi: \"No volume expansion is possible\" (controller/clone/planner.go validateAdvancedClonePVC)",
			cdi:      "host-assisted",
			pool:     setClass(lvm),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategyCsiClone), func(s *state.State) { scOf(s, lvm).AllowVolumeExpansion = nil }),
			refusals: mismatch,
			detail:   copies("NoVolumeExpansion"),
		},
		"no snapshot class": {
			reason:   "the override snapshot, no VolumeSnapshotClass of rbd: \"No compatible volumesnapshotclass found\" (controller/clone/common.go GetCompatibleVolumeSnapshotClass)",
			cdi:      "host-assisted",
			pool:     setClass(lvm),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategySnapshot)),
			refusals: mismatch,
			detail:   copies("NoVolumeSnapshotClass"),
		},
		"snapshot class of the driver": {
			reason:   "neighbour: a VolumeSnapshotClass of rbd, no cause: a cross-class snapshot clone, the intentional difference (one class per flavor)",
			cdi:      "snapshot",
			pool:     setClass(lvm),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategySnapshot), with(fixtures.SnapshotClass("rbd-snap", rbd, true))),
			refusals: mismatch,
			detail:   says([]string{"cross-class"}, []string{"would copy"}),
		},
		"no copy cause": {
			reason:   "neighbour: one driver, the override csi-clone, the same mode, room to expand: CDI attempts a cross-class CSI clone; still StorageClassMismatch",
			cdi:      "csi-clone",
			pool:     setClass(lvm),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategyCsiClone)),
			refusals: mismatch,
			detail:   says([]string{"cross-class", "rbd.csi.ceph.com"}, []string{"would copy"}),
		},
		"no copy cause, CSIDrivers unknown": {
			reason:   "neighbour: what was not observed is named in the message, and proves no copy",
			cdi:      "csi-clone",
			pool:     setClass(lvm),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategyCsiClone), func(s *state.State) { s.Observed &^= state.CSIDriver }),
			refusals: mismatch,
			detail:   says([]string{"cross-class", "unless what was not observed (CSIDriver)"}, []string{"would copy the image over the pod network instead"}),
		},
		"one class, override copy": {
			reason:   "neighbour: on one class the cause is HostAssistedClone, as before",
			cdi:      "host-assisted",
			pool:     setClass(slow),
			state:    rbdCluster(ptr.To(cdiv1.CloneStrategyHostAssisted)),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
	})
}

// TestCDIFilesystemGoldenIntoBlockDisk: CDI skips its size check for a
// Block disk of a Filesystem golden only when the disk holds the image
// inside the golden, which it measures (controller/datavolume/pvc-clone-controller.go
// detectCloneSize sets cdi.kubevirt.io/permissiveClone); otherwise
// controller/clone/planner.go validateSourcePVC fails the clone for good.
// The image is bounded by the golden's request: a disk whose rendered
// request is below it is DiskSmallerThanGolden, beside the volume-mode
// cause that refuses such a clone anyway.
func TestCDIFilesystemGoldenIntoBlockDisk(t *testing.T) {
	fsGolden := func(size string) func(*state.State) {
		return func(s *state.State) {
			c := claimOf(s)
			c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
			c.Spec.Resources.Requests[corev1.ResourceStorage] = quantityOf(size)
			c.Status.Capacity[corev1.ResourceStorage] = quantityOf(size)
			v := rbdVolumeOf(s)
			v.Spec.VolumeMode = c.Spec.VolumeMode
			v.Spec.Capacity[corev1.ResourceStorage] = quantityOf(size)
			s.DataVolumes[0].Spec.Storage.Resources.Requests[corev1.ResourceStorage] = quantityOf(size)
		}
	}
	modes := f(guard.HostAssistedClone, "storageClass")
	runCDICases(t, map[string]cdiCase{
		"issue example: slow at 5586Mi, golden Filesystem 6Gi": {
			reason: "the Block disk's 5586Mi is below the golden's 6Gi: the image may not fit, and validateSourcePVC fails the clone for good",
			cdi:    "fails",
			pool:   all2(setClass(slow), diskSize("5586Mi")),
			state: rbdCluster(ptr.To(cdiv1.CloneStrategySnapshot), fsGolden("6Gi"),
				with(fixtures.SnapshotClass("rbd-snap", rbd, true))),
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize"), modes},
			detail:   says([]string{"measures the image", "detectCloneSize", "validateSourcePVC", "6Gi"}, nil),
		},
		"slow at 6Gi, golden Filesystem 6Gi": {
			reason: "neighbour: the disk holds the golden's request, so the image: only the volume-mode cause",
			cdi:    "host-assisted",
			pool:   all2(setClass(slow), diskSize("6Gi")),
			state: rbdCluster(ptr.To(cdiv1.CloneStrategySnapshot), fsGolden("6Gi"),
				with(fixtures.SnapshotClass("rbd-snap", rbd, true))),
			refusals: []finding{modes},
		},
	})
}

// all2 applies pool edits in order.
func all2(fs ...func(*plan.Pool)) func(*plan.Pool) {
	return func(p *plan.Pool) {
		for _, f := range fs {
			f(p)
		}
	}
}

// TestCDIClassMissingWithAvailableVolume: a class no StorageClass names
// stays StorageClassNotFound, and the message says what CDI does: with an
// Available PersistentVolume of that class that holds the disk, CDI
// renders the disk's PVC from it (controller/datavolume/util.go
// renderPvcSpecFromAvailablePv) and copies the golden into it host-assisted
// (no class, so no CSIDriver for the clone populator); without one it never
// renders. The planner reads no volume but the golden's, so the message
// says both, and the refusal is the same with the volume or without.
func TestCDIClassMissingWithAvailableVolume(t *testing.T) {
	static := with(fixtures.Volume("static-pv-1").Class("nonexistent").Size("40Gi").HostPath("/mnt/static").
		VolumeMode(corev1.PersistentVolumeFilesystem).AccessModes(corev1.ReadWriteOnce).Available().Obj())
	// The golden is on "replicated": the disk's class differs from it too.
	notFound := []finding{f(guard.StorageClassMismatch, "storageClass"), f(guard.StorageClassNotFound, "storageClass")}
	both := says([]string{"never renders", "unless an Available PersistentVolume of that class", "renderPvcSpecFromAvailablePv", "over the pod network"}, nil)
	runCDICases(t, map[string]cdiCase{
		"issue example: nonexistent at 7Gi, static-pv-1 Filesystem 40Gi": {
			reason:   "CDI renders the disk from the volume and copies",
			cdi:      "host-assisted",
			pool:     all2(setClass("nonexistent"), diskSize("7Gi")),
			state:    static,
			refusals: notFound,
			detailOf: guard.StorageClassNotFound,
			detail:   both,
		},
		"no volume": {
			reason:   "neighbour: CDI never renders; the same refusal, the same message",
			cdi:      "never-renders",
			pool:     all2(setClass("nonexistent"), diskSize("7Gi")),
			refusals: notFound,
			detailOf: guard.StorageClassNotFound,
			detail:   both,
		},
	})
}

// TestCDIGoldenStillImporting: CDI holds a clone until the golden's
// DataVolume succeeds, whatever its importer's restarts
// (controller/datavolume/pvc-clone-controller.go isSourceReadyToClone,
// controller/common/util.go IsPopulated): only phase Failed is
// GoldenImportFailed; restarts with Running False are GoldenImportStalled.
func TestCDIGoldenStillImporting(t *testing.T) {
	importing := func(phase cdiv1.DataVolumePhase, restarts int32, running corev1.ConditionStatus, reason string) func(*state.State) {
		return func(s *state.State) {
			dv := &s.DataVolumes[0]
			dv.Status.Phase, dv.Status.RestartCount = phase, restarts
			dv.Status.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: running, Reason: reason}}
		}
	}
	runCDICases(t, map[string]cdiCase{
		"issue example: ImportInProgress, 3 restarts, Running False Error, PVC bound": {
			reason:   "CDI waits for Succeeded and then clones at the storage layer: a warning, never a refusal",
			cdi:      "waits",
			state:    importing(cdiv1.ImportInProgress, 3, corev1.ConditionFalse, "Error"),
			warnings: []finding{f(guard.GoldenImportStalled, "osImage.builtin")},
		},
		"ten restarts": {
			reason:   "however many",
			cdi:      "waits",
			state:    importing(cdiv1.ImportInProgress, 10, corev1.ConditionFalse, ""),
			warnings: []finding{f(guard.GoldenImportStalled, "osImage.builtin")},
		},
		"phase Failed": {
			reason:   "neighbour: phase Failed is GoldenImportFailed: the golden never populates, and the disk never gets its data",
			cdi:      "fails",
			state:    importing(cdiv1.Failed, 0, corev1.ConditionFalse, "Error"),
			refusals: []finding{f(guard.GoldenImportFailed, "osImage.builtin")},
		},
	})
}

// TestCDIGoldenVolumeOfAnotherClaim: the golden PVC's volume names another
// claim in its claimRef; CDI's clone populator reads the golden's driver
// from it, errors ("pvc does not match volume claim ref",
// controller/clone/common.go GetDriverFromVolume) and retries for ever: the
// plan passes only with GoldenPending saying so. A copy the strategy
// already takes never reads the volume.
func TestCDIGoldenVolumeOfAnotherClaim(t *testing.T) {
	elsewhere := func(s *state.State) { volumeOf(s).Spec.ClaimRef.Name = "someone-else" }
	runCDICases(t, map[string]cdiCase{
		"claimRef names another claim": {
			reason:   "GoldenPending with the cause",
			cdi:      "waits",
			state:    elsewhere,
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"claimRef names another claim, snapshot strategy": {
			reason:   "the snapshot strategy reads the driver first too (GetCompatibleVolumeSnapshotClass)",
			cdi:      "waits",
			state:    all(elsewhere, func(s *state.State) { cdiOf(s).Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategySnapshot) }),
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"claimRef names another claim, strategy copy": {
			reason:   "neighbour: the copy never reads the volume: HostAssistedClone alone",
			cdi:      "host-assisted",
			state:    all(elsewhere, func(s *state.State) { cdiOf(s).Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategyHostAssisted) }),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"claimRef names the golden": {
			reason: "neighbour: the base state clones",
			cdi:    "csi-clone",
		},
	})
}

// TestCDIPendingGoldenPredicted: a golden CDI has not bound yet is planned
// against the PVC CDI will render for it from its DataVolume (its class,
// its StorageProfile's volume mode, its request inflated as a disk's is:
// controller/datavolume/util.go renderPvcSpec), bound at that request; the
// refusals are those that PVC calls for, each marked predicted.
func TestCDIPendingGoldenPredicted(t *testing.T) {
	// noPVC: the golden's DataVolume is importing, CDI has created no PVC
	// yet (the populator's PVC is named otherwise until it binds).
	noPVC := func(s *state.State) {
		s.DataVolumes[0].Status.Phase = cdiv1.ImportInProgress
		s.PersistentVolumeClaims, s.PersistentVolumes = nil, nil
	}
	unbound := func(s *state.State) {
		s.DataVolumes[0].Status.Phase = cdiv1.ImportInProgress
		c := claimOf(s)
		c.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
		c.Spec.VolumeName = ""
		s.PersistentVolumes = nil
	}
	noExpansion := func(s *state.State) { scOf(s, replicated).AllowVolumeExpansion = nil }
	predicted := says([]string{"predicted", "not bound yet"}, nil)
	pending := []finding{f(guard.GoldenPending, "osImage.builtin")}
	runCDICases(t, map[string]cdiCase{
		"importing, no PVC, class without expansion": {
			reason:   "bound at 6Gi, the 20Gi disk needs expansion: \"No volume expansion is possible\", predicted",
			cdi:      "host-assisted",
			state:    all(noPVC, noExpansion),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
			warnings: pending,
			detail:   predicted,
		},
		"importing, no PVC, class expands": {
			reason:   "neighbour: the class expands: a CSI clone once imported",
			cdi:      "waits",
			state:    noPVC,
			warnings: pending,
		},
		"importing, no PVC, golden larger than the disk": {
			reason: "the golden's 30Gi request against the 20Gi disk: the size check fails for good, predicted",
			cdi:    "fails",
			state: all(noPVC, func(s *state.State) {
				s.DataVolumes[0].Spec.Storage.Resources.Requests[corev1.ResourceStorage] = quantityOf("30Gi")
			}),
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
			warnings: pending,
			detail:   predicted,
		},
		"not created yet, profile Filesystem": {
			reason:   "the golden's entry on a class whose profile says Filesystem: its PVC will be Filesystem, the disk too; 6Gi inflated, bound at that size, below the 20Gi disk on a class without expansion",
			cdi:      "host-assisted",
			state:    all(noPVC, noExpansion, func(s *state.State) { s.DataVolumes = nil; filesystemProfile(s) }),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
			warnings: pending,
			detail:   predicted,
		},
		"PVC created, not bound": {
			reason:   "its request is known, its capacity predicted at it: no expansion, a copy",
			cdi:      "host-assisted",
			state:    all(unbound, noExpansion),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
			warnings: pending,
			detail:   predicted,
		},
		"DataVolume succeeded, PVC gone": {
			reason:   "CDI has no source: CloneWithoutSource (controller/datavolume/pvc-clone-controller.go validateCloneAndSourcePVC), the disk waits",
			cdi:      "waits",
			state:    func(s *state.State) { s.PersistentVolumeClaims, s.PersistentVolumes = nil, nil },
			warnings: pending,
		},
		"PVC created, not bound, class expands": {
			reason:   "neighbour: the class expands",
			cdi:      "waits",
			state:    unbound,
			warnings: pending,
		},
	})
}

// filesystemProfile makes the base class's profile Filesystem.
func filesystemProfile(s *state.State) {
	spOf(s, replicated).Status.ClaimPropertySets[0].VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
}
