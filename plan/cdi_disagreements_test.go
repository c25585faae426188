package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// TestIssue12Disagreements: each class of disagreement once measured
// between the planner and CDI v1.64.0's own code, on a LINSTOR cluster's
// state (linstorState), with CDI's verdict as the expected outcome.
func TestIssue12Disagreements(t *testing.T) {
	profileStrategy := func(spec, status cdiv1.CDICloneStrategy) func(*state.State) {
		return func(s *state.State) {
			sp := spOf(s, replicated)
			sp.Spec.CloneStrategy, sp.Status.CloneStrategy = ptr.To(spec), ptr.To(status)
		}
	}
	// unknownProvisioner moves the class, its CSIDriver and the golden's
	// volume to a provisioner CDI's capabilities table does not know: its
	// profile has no claim property sets.
	unknownProvisioner := func(s *state.State) {
		scOf(s, replicated).Provisioner = unknownProv
		s.CSIDrivers[0].Name = unknownProv
		sp := spOf(s, replicated)
		sp.Status.Provisioner, sp.Status.ClaimPropertySets = ptr.To(unknownProv), nil
		volumeOf(s).Spec.CSI.Driver = unknownProv
	}
	cases := map[string]cdiCase{
		"pool on a second class of the same driver": {
			reason:   "CDI attempts a cross-class CSI clone (controller/clone/common.go GetCommonDriver compares drivers, never classes); the seed's one-class rule refuses it, and says so truly",
			cdi:      "csi-clone",
			pool:     setClass("local"),
			state:    with(linstorClass("local").Obj(), linstorProfile("local").Obj()),
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
			detail: func(t *testing.T, msg string) {
				assert.Contains(t, msg, "cross-class")
				assert.NotContains(t, msg, "would copy")
			},
		},
		"no override, profile snapshot, no VolumeSnapshotClass": {
			reason:   "\"No compatible volumesnapshotclass found\" (controller/clone/planner.go computeStrategyForSourcePVC, controller/clone/common.go GetCompatibleVolumeSnapshotClass)",
			cdi:      "host-assisted",
			state:    all(noOverride, func(s *state.State) { spOf(s, replicated).Status.CloneStrategy = ptr.To(cdiv1.CloneStrategySnapshot) }),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"override snapshot, no VolumeSnapshotClass": {
			reason:   "the override snapshot needs a VolumeSnapshotClass as the profile's does (controller/clone/common.go GetGlobalCloneStrategyOverride)",
			cdi:      "host-assisted",
			state:    func(s *state.State) { cdiOf(s).Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategySnapshot) },
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		// Without the override: with it the profile's strategy is never read.
		"profile spec copy, status csi-clone": {
			reason: "CDI reads status.cloneStrategy, never spec (controller/clone/planner.go computeStrategyForSourcePVC): a CSI clone",
			cdi:    "csi-clone",
			state:  all(noOverride, profileStrategy(cdiv1.CloneStrategyHostAssisted, cdiv1.CloneStrategyCsiClone)),
		},
		"profile spec csi-clone, status copy": {
			reason:   "the reverse: the status says copy",
			cdi:      "host-assisted",
			state:    all(noOverride, profileStrategy(cdiv1.CloneStrategyCsiClone, cdiv1.CloneStrategyHostAssisted)),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"golden PVC without a class": {
			reason: "no class and no CSI volume (a host path): the golden has no driver, \"Provisioners are incompatible\" (controller/clone/common.go GetCommonDriver)",
			cdi:    "host-assisted",
			state: all(pvcOnly, func(s *state.State) {
				claimOf(s).Spec.StorageClassName = nil
				v := volumeOf(s)
				v.Spec.StorageClassName = ""
				v.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/golden"}}
			}),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"golden PV on another CSI driver": {
			reason:   "the volume's driver is the golden's (controller/clone/common.go GetDriverFromVolume): not LINSTOR, \"Provisioners are incompatible\"",
			cdi:      "host-assisted",
			state:    func(s *state.State) { volumeOf(s).Spec.CSI.Driver = otherDriver },
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"Filesystem disk, no expansion, 6400Mi, golden 6828998001": {
			reason: "6400Mi renders 7113539584 (controller/common/util.go InflateSizeWithOverhead), above the golden's request (the size check passes) and its capacity on a class without expansion: \"No volume expansion is possible\" (controller/clone/planner.go validateAdvancedClonePVC)",
			cdi:    "host-assisted",
			pool:   diskSize("6400Mi"),
			state: all(filesystem, goldenSizes("6828998001", "6828998001"), func(s *state.State) {
				scOf(s, replicated).AllowVolumeExpansion = nil
			}),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"only default beta-annotated": {
			reason: "CDI never reads the beta annotation (controller/common/util.go getFallbackStorageClass): no default, the disk never renders",
			cdi:    "never-renders",
			pool:   setClass(""),
			state: func(s *state.State) {
				scOf(s, replicated).Annotations = map[string]string{storage.BetaDefaultAnnotation: "true"}
			},
			refusals: []finding{f(guard.DefaultStorageClassUnresolvable, "storageClass")},
		},
		"golden capacity 6148Mi, diskSize 6Gi": {
			reason: "CDI compares the golden's request (6Gi) with the disk's (controller/common/util.go ValidateRequestedCloneSize), never the capacity; the capacity is above the disk's request, so nothing expands",
			cdi:    "csi-clone",
			pool:   diskSize("6Gi"),
			state:  goldenSizes("6Gi", "6148Mi"),
		},
		"PVC-only Filesystem golden of 6828998001, diskSize 6Gi": {
			reason: "the golden's request was CDI's inflation of 6Gi; the disk's 6Gi renders the same 6828998001 (controller/clone/planner.go validateSourcePVC compares the rendered requests)",
			cdi:    "csi-clone",
			pool:   diskSize("6Gi"),
			state:  all(pvcOnly, filesystem, goldenSizes("6828998001", "6828998001")),
		},
		"minimumSupportedPvcSize 10Gi, diskSize 4Gi": {
			reason: "the 4Gi disk is raised to 10Gi before the comparison with the 6Gi golden (controller/common/util.go GetEffectiveVolumeSize, GetEffectiveStorageResources)",
			cdi:    "csi-clone",
			pool:   diskSize("4Gi"),
			state: func(s *state.State) {
				spOf(s, replicated).Annotations = map[string]string{cdi.MinimumSupportedPVCSizeAnnotation: "10Gi"}
			},
		},
		"golden request 8Gi, capacity 6Gi, diskSize 7Gi": {
			reason:   "the golden's request 8Gi is above the disk's 7Gi: \"target resources requests storage size is smaller than the source\" (controller/datavolume/pvc-clone-controller.go validateClone)",
			cdi:      "fails",
			pool:     diskSize("7Gi"),
			state:    goldenSizes("8Gi", "6Gi"),
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
		},
		"provisioner CDI does not know, Block golden": {
			reason:   "the profile has no claim property sets: \"no accessMode specified in StorageProfile\" (controller/datavolume/util.go getDefaultVolumeAndAccessMode); no PVC, neither clone nor copy",
			cdi:      "never-renders",
			state:    unknownProvisioner,
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"provisioner CDI does not know, Filesystem golden": {
			reason:   "the same for a golden that was Filesystem (the planner used to take the disk for Filesystem too, and plan)",
			cdi:      "never-renders",
			state:    all(unknownProvisioner, func(s *state.State) { claimOf(s).Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem) }),
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
	}
	runCDICases(t, cases)
}
