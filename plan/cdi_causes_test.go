package plan_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The tests of this file take each cause for which CDI v1.64.0 does not
// clone the worker disk at the storage layer,
// trigger it on the base state, and set its nearest neighbour just clear of
// it. Each case says CDI's verdict and the CDI function (paths under pkg/)
// that gives it; the expected findings are that verdict's.

func runCDICases(t *testing.T, cases map[string]cdiCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runCDI(t, tc) })
	}
}

func TestCDIBaseStateClones(t *testing.T) {
	runCDICases(t, map[string]cdiCase{
		"base": {reason: "CDI's clone populator makes a CSI clone (controller/clone/planner.go computeStrategyForSourcePVC)", cdi: "csi-clone"},
	})
}

func TestCDIStorageClassNotFound(t *testing.T) {
	// The pool's disks cloned on "replicated" freeze an empty class to it.
	frozen := func(s *state.State) {
		with(fixtures.WorkerPVC(tenantNS, "demo-md0-x-disk-system", "demo-md0", golden, replicated))(s)
	}
	classGone := func(s *state.State) { s.StorageClasses = nil }
	runCDICases(t, map[string]cdiCase{
		"explicit class missing": {
			reason: "a class name CDI cannot get renders no PVC (controller/common/util.go getStorageClassByName, controller/datavolume/util.go renderPvcSpecVolumeModeAndAccessModesAndStorageClass: \"no storageClass to choose profile\"); the golden's class differs too",
			cdi:    "never-renders",
			pool:   setClass("gone"),
			refusals: []finding{
				f(guard.StorageClassNotFound, "storageClass"),
				f(guard.StorageClassMismatch, "storageClass"),
			},
		},
		"explicit class present": {
			reason: "neighbour: the class exists",
			cdi:    "csi-clone",
			pool:   setClass(replicated),
		},
		"frozen class missing": {
			reason:   "the class the pool's disks are bound on was deleted: the disk names it, and CDI cannot get it (renderPvcSpecVolumeModeAndAccessModesAndStorageClass)",
			cdi:      "never-renders",
			pool:     setClass(""),
			state:    all(frozen, classGone),
			refusals: []finding{f(guard.StorageClassNotFound, "storageClass")},
		},
		"frozen class present": {
			reason: "neighbour: the frozen class exists",
			cdi:    "csi-clone",
			pool:   setClass(""),
			state:  frozen,
		},
		// A default is picked among the observed classes, so it cannot be
		// missing: the cluster without one is DefaultStorageClassUnresolvable.
		"default class missing": {
			reason:   "no class is the default: CDI finds none (controller/common/util.go getFallbackStorageClass) and renders no PVC",
			cdi:      "never-renders",
			pool:     setClass(""),
			state:    func(s *state.State) { scOf(s, replicated).Annotations = nil },
			refusals: []finding{f(guard.DefaultStorageClassUnresolvable, "storageClass")},
		},
		"default class present": {
			reason: "neighbour: the default is the golden's class",
			cdi:    "csi-clone",
			pool:   setClass(""),
		},
	})
}

func TestCDIDiskUnrenderable(t *testing.T) {
	sets := func(cps ...cdiv1.ClaimPropertySet) func(*state.State) {
		return func(s *state.State) { spOf(s, replicated).Status.ClaimPropertySets = cps }
	}
	rwxBlock := cdiv1.ClaimPropertySet{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeMode: ptr.To(corev1.PersistentVolumeBlock)}
	blockOnly := cdiv1.ClaimPropertySet{VolumeMode: ptr.To(corev1.PersistentVolumeBlock)}
	tinyGolden := all(goldenSizes("1Mi", "1Mi"))
	runCDICases(t, map[string]cdiCase{
		"no StorageProfile": {
			reason:   "CDI cannot get the class's StorageProfile (controller/datavolume/util.go getDefaultVolumeAndAccessMode: \"cannot get StorageProfile\")",
			cdi:      "never-renders",
			state:    func(s *state.State) { s.StorageProfiles = nil },
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"status.claimPropertySets empty": {
			reason:   "a provisioner CDI does not know: no set in status (getDefaultVolumeAndAccessMode: \"no accessMode specified in StorageProfile\")",
			cdi:      "never-renders",
			state:    sets(),
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"set[0] without access modes, set[1] with": {
			reason:   "only status.claimPropertySets[0] is read (getDefaultVolumeAndAccessMode), so set[1]'s access modes do not help",
			cdi:      "never-renders",
			state:    sets(blockOnly, rwxBlock),
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"set[0] with access modes, set[1] without": {
			reason: "neighbour: set[0] carries access modes; what follows is never read",
			cdi:    "csi-clone",
			state:  sets(rwxBlock, blockOnly),
		},
		"spec.claimPropertySets set, status empty": {
			reason: "CDI's renderer never reads the profile's spec (getDefaultVolumeAndAccessMode reads status); the profile controller copies it only once it reconciles",
			cdi:    "never-renders",
			state: all(sets(), func(s *state.State) {
				spOf(s, replicated).Spec.ClaimPropertySets = []cdiv1.ClaimPropertySet{rwxBlock}
			}),
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"no CDIConfig": {
			reason:   "without CDIConfig \"config\" CDI's renderer errors (controller/datavolume/util.go pvcFromStorage: \"error getting CDIConfig\")",
			cdi:      "never-renders",
			state:    func(s *state.State) { s.CDIConfigs = nil },
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"a CDIConfig of another name": {
			reason:   "CDI reads only the one named config (pvcFromStorage)",
			cdi:      "never-renders",
			state:    func(s *state.State) { s.CDIConfigs[0].Name = "other" },
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"under 1MiB": {
			reason:   "one byte under 1MiB: CDI's webhook rejects the DataVolume (apiserver/webhooks/datavolume-validate.go validateStorageSize)",
			cdi:      "rejected-at-admission",
			pool:     diskSize("1048575"),
			state:    tinyGolden,
			refusals: []finding{f(guard.DiskUnrenderable, "diskSize")},
		},
		"exactly 1Mi": {
			reason: "neighbour: 1Mi is admitted, and clones a golden of 1Mi",
			cdi:    "csi-clone",
			pool:   diskSize("1Mi"),
			state:  tinyGolden,
		},
		"exactly 1Mi, the golden larger": {
			reason:   "1Mi renders; a 6Gi Block golden then fails CDI's size check (controller/datavolume/pvc-clone-controller.go validateClone)",
			cdi:      "fails",
			pool:     diskSize("1Mi"),
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
		},
	})
}

// TestCDIFilesystemOverheadAndExpansion: a Filesystem disk's request is
// inflated by the overhead (controller/common/util.go
// InflateSizeWithOverhead: 6Gi renders 6828998001), and a golden whose
// capacity is below the rendered request needs the class to expand
// (controller/clone/planner.go validateAdvancedClonePVC: "No volume
// expansion is possible"), although diskSize itself is below the capacity.
func TestCDIFilesystemOverheadAndExpansion(t *testing.T) {
	base := func(capacity string) func(*state.State) {
		return all(filesystem, goldenSizes("6Gi", capacity), func(s *state.State) {
			scOf(s, replicated).AllowVolumeExpansion = ptr.To(false)
		})
	}
	runCDICases(t, map[string]cdiCase{
		"overhead one byte over the capacity": {
			reason:   "6Gi renders 6828998001, one byte over the golden's capacity 6828998000, on a class without expansion",
			cdi:      "host-assisted",
			pool:     diskSize("6Gi"),
			state:    base("6828998000"),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"overhead equal to the capacity": {
			reason: "neighbour: the capacity is the rendered request (CDI expands only a strictly smaller golden)",
			cdi:    "csi-clone",
			pool:   diskSize("6Gi"),
			state:  base("6828998001"),
		},
		"overhead one byte under the capacity": {
			reason: "neighbour: the rendered request one byte under the capacity",
			cdi:    "csi-clone",
			pool:   diskSize("6Gi"),
			state:  base("6828998002"),
		},
		"overhead over the capacity, class expands": {
			reason: "neighbour: the same sizes on a class that allows expansion",
			cdi:    "csi-clone",
			pool:   diskSize("6Gi"),
			state:  all(base("6828998000"), func(s *state.State) { scOf(s, replicated).AllowVolumeExpansion = ptr.To(true) }),
		},
	})
}

// TestCDISnapshotClass: with the snapshot strategy CDI needs a
// VolumeSnapshotClass of the common CSI driver
// (controller/clone/common.go GetCompatibleVolumeSnapshotClass,
// getCommonSnapshotClass; controller/common/util.go GetVolumeSnapshotClass):
// the class both StorageProfiles name in status.snapshotClass, which must
// be of the driver; else the driver's default-annotated one; else its
// first by name. None: "No compatible volumesnapshotclass found".
func TestCDISnapshotClass(t *testing.T) {
	snapshot := all(noOverride, func(s *state.State) {
		spOf(s, replicated).Status.CloneStrategy = ptr.To(cdiv1.CloneStrategySnapshot)
	})
	classlessGolden := all(pvcOnly, func(s *state.State) {
		claimOf(s).Spec.StorageClassName = nil
		volumeOf(s).Spec.StorageClassName = ""
	})
	named := func(name string) func(*state.State) {
		return func(s *state.State) { spOf(s, replicated).Status.SnapshotClass = ptr.To(name) }
	}
	runCDICases(t, map[string]cdiCase{
		"no VolumeSnapshotClass": {
			reason:   "no class at all: GetCompatibleVolumeSnapshotClass finds none",
			cdi:      "host-assisted",
			state:    snapshot,
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"of another driver": {
			reason:   "a class of another driver is no class of LINSTOR (GetVolumeSnapshotClass matches the driver)",
			cdi:      "host-assisted",
			state:    all(snapshot, with(fixtures.SnapshotClass("ceph", otherDriver, true))),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"of the driver": {
			reason: "neighbour: a class of LINSTOR, the only one (\"First VolumeSnapshotClass selected\")",
			cdi:    "snapshot",
			state:  all(snapshot, with(fixtures.SnapshotClass("linstor", linstor, false))),
		},
		"a default of the driver": {
			reason: "the driver's default-annotated class (\"Default VolumeSnapshotClass selected\")",
			cdi:    "snapshot",
			state: all(snapshot, with(fixtures.SnapshotClass("a-linstor", linstor, false), fixtures.SnapshotClass("z-linstor", linstor, true),
				fixtures.SnapshotClass("ceph", otherDriver, true))),
		},
		"first by name": {
			reason: "no default of the driver: its first by name (GetVolumeSnapshotClass sorts the names)",
			cdi:    "snapshot",
			state:  all(snapshot, with(fixtures.SnapshotClass("z-linstor", linstor, false), fixtures.SnapshotClass("a-linstor", linstor, false))),
		},
		"the profiles name one of the driver": {
			reason: "both profiles (the golden's class is the disk's) name a class of LINSTOR in status.snapshotClass (\"VolumeSnapshotClass selected according to StorageProfile\")",
			cdi:    "snapshot",
			state:  all(snapshot, named("named"), with(fixtures.SnapshotClass("named", linstor, false), fixtures.SnapshotClass("default", linstor, true))),
		},
		"the profiles name one of another driver": {
			reason:   "the named class is of another driver: CDI takes neither the default nor the first (GetVolumeSnapshotClass returns nil)",
			cdi:      "host-assisted",
			state:    all(snapshot, named("ceph"), with(fixtures.SnapshotClass("ceph", otherDriver, false), fixtures.SnapshotClass("default", linstor, true))),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"the profiles name a missing one": {
			reason: "the named class does not exist: CDI's Get errors and the clone retries (waits), copying nothing",
			cdi:    "waits",
			state:  all(snapshot, named("gone"), with(fixtures.SnapshotClass("default", linstor, true))),
		},
		// CDI takes the StorageProfile of a PVC without a class from the
		// cluster's default class (controller/clone/common.go
		// getSnapshotClassForClaim, through controller/common/util.go
		// GetStorageClassByNameWithK8sFallback), so for a golden without a
		// class the default's profile names the golden's snapshot class.
		"classless golden, the default's profile names one of another driver": {
			reason:   "the golden's (the default's) and the disk's profile name the same class, of another driver: no fallback to LINSTOR's default",
			cdi:      "host-assisted",
			state:    all(snapshot, classlessGolden, named("ceph"), with(fixtures.SnapshotClass("ceph", otherDriver, false), fixtures.SnapshotClass("default", linstor, true))),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"classless golden, the default's profile names one of the driver": {
			reason: "neighbour: the named class is LINSTOR's",
			cdi:    "snapshot",
			state:  all(snapshot, classlessGolden, named("named"), with(fixtures.SnapshotClass("named", linstor, false), fixtures.SnapshotClass("ceph", otherDriver, true))),
		},
		"override snapshot without a class": {
			reason:   "the CDI resource's override snapshot needs a class as the profile's does (controller/clone/common.go GetGlobalCloneStrategyOverride)",
			cdi:      "host-assisted",
			state:    func(s *state.State) { cdiOf(s).Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategySnapshot) },
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"override csi-clone without a class": {
			reason: "neighbour: Cozystack's csi-clone needs no VolumeSnapshotClass, whatever the profile says",
			cdi:    "csi-clone",
			state: func(s *state.State) {
				spOf(s, replicated).Status.CloneStrategy = ptr.To(cdiv1.CloneStrategySnapshot)
			},
		},
	})
}

// TestCDICloneStrategyStatusNotSpec: CDI reads the StorageProfile's
// status.cloneStrategy (controller/clone/planner.go
// computeStrategyForSourcePVC); its spec is what an admin asked for and the
// profile controller has not reconciled yet.
func TestCDICloneStrategyStatusNotSpec(t *testing.T) {
	strategies := func(spec, status cdiv1.CDICloneStrategy) func(*state.State) {
		return all(noOverride, func(s *state.State) {
			sp := spOf(s, replicated)
			sp.Spec.CloneStrategy, sp.Status.CloneStrategy = ptr.To(spec), ptr.To(status)
		})
	}
	runCDICases(t, map[string]cdiCase{
		"spec copy, status csi-clone": {
			reason: "the status says csi-clone: CDI clones",
			cdi:    "csi-clone",
			state:  strategies(cdiv1.CloneStrategyHostAssisted, cdiv1.CloneStrategyCsiClone),
		},
		"spec csi-clone, status copy": {
			reason:   "the status says copy: CDI copies",
			cdi:      "host-assisted",
			state:    strategies(cdiv1.CloneStrategyCsiClone, cdiv1.CloneStrategyHostAssisted),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"no status strategy": {
			reason:   "neither override nor status: CDI's default snapshot, with no VolumeSnapshotClass",
			cdi:      "host-assisted",
			state:    all(noOverride, func(s *state.State) { spOf(s, replicated).Status.CloneStrategy = nil }),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
	})
}

// TestCDINoPopulator: CDI's clone populator runs only for a class whose
// provisioner has a CSIDriver (controller/datavolume/controller-base.go
// shouldUseCDIPopulator, controller/datavolume/util.go
// storageClassCSIDriverExists); otherwise CDI's legacy clone copies.
func TestCDINoPopulator(t *testing.T) {
	runCDICases(t, map[string]cdiCase{
		"no CSIDriver": {
			reason:   "LINSTOR's CSIDriver is missing: host-assisted (\"NoPopulator\")",
			cdi:      "host-assisted",
			state:    func(s *state.State) { s.CSIDrivers = nil },
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"a CSIDriver of another name": {
			reason:   "the CSIDriver must be named as the provisioner",
			cdi:      "host-assisted",
			state:    func(s *state.State) { s.CSIDrivers[0].Name = otherDriver },
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"CSIDriver present": {
			reason: "neighbour: the populator runs",
			cdi:    "csi-clone",
		},
	})
}

// TestCDIGoldenDriver: the golden's CSI driver is its bound volume's
// spec.csi.driver, else its class's provisioner; a golden with neither has
// none, and a driver other than the disk class's is a copy
// (controller/clone/common.go GetCommonDriver, GetDriverFromVolume,
// GetStorageClassForClaim: "Provisioners are incompatible").
func TestCDIGoldenDriver(t *testing.T) {
	classless := all(pvcOnly, func(s *state.State) {
		claimOf(s).Spec.StorageClassName = nil
		volumeOf(s).Spec.StorageClassName = ""
	})
	hostPath := func(s *state.State) {
		volumeOf(s).Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/golden"}}
	}
	driver := func(d string) func(*state.State) {
		return func(s *state.State) { volumeOf(s).Spec.CSI.Driver = d }
	}
	runCDICases(t, map[string]cdiCase{
		"classless golden on a CSI volume of the disk's driver": {
			reason: "the volume's driver is LINSTOR, the disk class's: CDI clones",
			cdi:    "csi-clone",
			state:  classless,
		},
		"classless golden on a host path volume": {
			reason:   "no class and no CSI volume: the golden has no driver",
			cdi:      "host-assisted",
			state:    all(classless, hostPath),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"classless golden on a volume of another driver": {
			reason:   "the volume's driver is not the disk class's",
			cdi:      "host-assisted",
			state:    all(classless, driver(otherDriver)),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"golden on the class, volume of another driver": {
			reason:   "the volume's driver wins over the class's provisioner",
			cdi:      "host-assisted",
			state:    driver(otherDriver),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"golden on the class, host path volume": {
			reason: "neighbour: no CSI volume, so the class's provisioner, LINSTOR",
			cdi:    "csi-clone",
			state:  hostPath,
		},
		"golden volume not observed": {
			reason:   "the driver rests on a volume not read: StateUnverified, no refusal (CDI clones: the volume is LINSTOR's)",
			cdi:      "csi-clone",
			state:    func(s *state.State) { s.Observed &^= state.PersistentVolume },
			warnings: []finding{f(guard.StateUnverified, "PersistentVolume")},
		},
		"golden volume bound to another claim": {
			reason:   "the volume's claimRef names another PVC: CDI's clone errors and retries (GetDriverFromVolume: \"pvc does not match volume claim ref\"), copying nothing",
			cdi:      "waits",
			state:    func(s *state.State) { volumeOf(s).Spec.ClaimRef.Name = "other" },
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
	})
}

// TestCDIVolumeModes: the golden PVC's volumeMode (nil is Filesystem)
// against the rendered disk's, the profile's set[0]
// (controller/clone/common.go SameVolumeMode: "The volume modes of source
// and target are incompatible").
func TestCDIVolumeModes(t *testing.T) {
	profileMode := func(m *corev1.PersistentVolumeMode) func(*state.State) {
		return func(s *state.State) { spOf(s, replicated).Status.ClaimPropertySets[0].VolumeMode = m }
	}
	goldenMode := func(m *corev1.PersistentVolumeMode) func(*state.State) {
		return func(s *state.State) { claimOf(s).Spec.VolumeMode = m }
	}
	fsMode, blockMode := ptr.To(corev1.PersistentVolumeFilesystem), ptr.To(corev1.PersistentVolumeBlock)
	runCDICases(t, map[string]cdiCase{
		"Block golden, Filesystem disk": {
			reason:   "the disk renders Filesystem, the golden is Block",
			cdi:      "host-assisted",
			state:    profileMode(fsMode),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"Filesystem golden, Block disk": {
			reason:   "the golden is Filesystem, the disk renders Block",
			cdi:      "host-assisted",
			state:    goldenMode(fsMode),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"nil golden mode, Block disk": {
			reason:   "a golden without volumeMode is Filesystem (util/util.go ResolveVolumeMode)",
			cdi:      "host-assisted",
			state:    goldenMode(nil),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"nil golden mode, nil profile mode": {
			reason: "neighbour: both nil are both Filesystem",
			cdi:    "csi-clone",
			state:  all(goldenMode(nil), profileMode(nil)),
		},
		"Block and Block": {
			reason: "neighbour: the base state",
			cdi:    "csi-clone",
			state:  all(goldenMode(blockMode), profileMode(blockMode)),
		},
	})
}

// TestCDIBlockGoldenSize: for a Block golden CDI's DataVolume controller
// compares the golden's request with diskSize raised to the profile's
// minimum, not inflated, before any PVC exists
// (controller/datavolume/pvc-clone-controller.go validateClone,
// controller/common/util.go GetEffectiveStorageResources,
// ValidateRequestedCloneSize): a Filesystem disk's inflated request does
// not save it.
func TestCDIBlockGoldenSize(t *testing.T) {
	fsDisk := func(s *state.State) {
		spOf(s, replicated).Status.ClaimPropertySets[0].VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
	runCDICases(t, map[string]cdiCase{
		"Block 21Gi golden, Filesystem 20Gi disk": {
			reason: "21Gi > 20Gi un-inflated, although the disk renders 22763326669 > 21Gi: the clone fails (the modes differ too)",
			cdi:    "fails",
			state:  all(fsDisk, goldenSizes("21Gi", "21Gi")),
			refusals: []finding{
				f(guard.DiskSmallerThanGolden, "diskSize"),
				f(guard.HostAssistedClone, "storageClass"),
			},
		},
		"Block 20Gi golden, Filesystem 20Gi disk": {
			reason:   "neighbour: equal sizes pass the size check; the volume modes still differ",
			cdi:      "host-assisted",
			state:    all(fsDisk, goldenSizes("20Gi", "20Gi")),
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"Filesystem 21Gi golden, Filesystem 20Gi disk": {
			reason: "neighbour: a Filesystem golden is compared with the rendered request (controller/clone/planner.go validateSourcePVC): 21Gi < 22763326669",
			cdi:    "csi-clone",
			state:  all(filesystem, goldenSizes("21Gi", "21Gi")),
		},
	})
}

// TestCDIMinimumSupportedPVCSize: the StorageProfile's
// minimumSupportedPvcSize raises the disk's request before CDI compares it
// with the golden's (controller/common/util.go GetEffectiveVolumeSize,
// GetEffectiveStorageResources).
func TestCDIMinimumSupportedPVCSize(t *testing.T) {
	minimum := func(size string) func(*state.State) {
		return func(s *state.State) {
			sp := spOf(s, replicated)
			sp.Annotations = map[string]string{cdi.MinimumSupportedPVCSizeAnnotation: size}
		}
	}
	runCDICases(t, map[string]cdiCase{
		"4Gi raised to 10Gi": {
			reason: "diskSize 4Gi under the 6Gi golden is raised to the 10Gi minimum: CDI clones",
			cdi:    "csi-clone",
			pool:   diskSize("4Gi"),
			state:  minimum("10Gi"),
		},
		"4Gi without a minimum": {
			reason:   "neighbour: no minimum, and 4Gi is under the golden's 6Gi",
			cdi:      "fails",
			pool:     diskSize("4Gi"),
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
		},
		"4Gi, a minimum that does not parse": {
			reason:   "neighbour: CDI ignores a minimum that is no quantity",
			cdi:      "fails",
			pool:     diskSize("4Gi"),
			state:    minimum("lots"),
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
		},
		"4Gi raised to 5Gi": {
			reason:   "neighbour: a minimum still under the golden",
			cdi:      "fails",
			pool:     diskSize("4Gi"),
			state:    minimum("5Gi"),
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
		},
	})
}

// TestCDIGoldenUnbound: a golden whose PVC is not bound with a capacity
// makes CDI's clone retry ("source/target size info missing",
// controller/clone/planner.go validateAdvancedClonePVC;
// controller/clone/common.go IsSourceClaimReady): the disk waits.
func TestCDIGoldenUnbound(t *testing.T) {
	runCDICases(t, map[string]cdiCase{
		"golden PVC pending": {
			reason:   "not bound, no capacity: GoldenPending, no refusal",
			cdi:      "waits",
			state:    func(s *state.State) { c := claimOf(s); c.Status.Phase = corev1.ClaimPending; c.Status.Capacity = nil },
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"golden PVC bound without capacity": {
			reason:   "bound, but no capacity stated: CDI still waits for it",
			cdi:      "waits",
			state:    func(s *state.State) { claimOf(s).Status.Capacity = nil },
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"golden PVC bound": {
			reason: "neighbour: bound with its capacity",
			cdi:    "csi-clone",
		},
	})
}

// TestCDIBetaDefault: CDI never reads the beta default annotation
// (controller/common/util.go getFallbackStorageClass), so a cluster whose
// only default carries it has no default, and a disk left to the default
// never renders.
func TestCDIBetaDefault(t *testing.T) {
	defaultBy := func(key string) func(*state.State) {
		return func(s *state.State) { scOf(s, replicated).Annotations = map[string]string{key: "true"} }
	}
	runCDICases(t, map[string]cdiCase{
		"beta default only": {
			reason:   "the beta annotation makes no default",
			cdi:      "never-renders",
			pool:     setClass(""),
			state:    defaultBy(storage.BetaDefaultAnnotation),
			refusals: []finding{f(guard.DefaultStorageClassUnresolvable, "storageClass")},
		},
		"GA default": {
			reason: "neighbour: the GA annotation makes the default",
			cdi:    "csi-clone",
			pool:   setClass(""),
			state:  defaultBy(storage.DefaultAnnotation),
		},
		"virt default": {
			reason: "neighbour: the virt annotation too",
			cdi:    "csi-clone",
			pool:   setClass(""),
			state:  defaultBy(storage.VirtDefaultAnnotation),
		},
	})
}

// TestCDIStorageClassMismatchMessage: a disk on another class than its
// golden's is refused (one class per flavor), and the message says what
// CDI would do, from the drivers: another driver copies
// (controller/clone/common.go GetCommonDriver), the same driver attempts a
// cross-class CSI clone (CDI never compares class names), unknown says
// both.
func TestCDIStorageClassMismatchMessage(t *testing.T) {
	// second adds a class, its StorageProfile and, for a driver other
	// than LINSTOR, its CSIDriver.
	second := func(name, prov string) func(*state.State) {
		objs := []client.Object{
			fixtures.StorageClass(name).Provisioner(prov).Expansion(true).Binding(storagev1.VolumeBindingImmediate).Obj(),
			fixtures.StorageProfile(name).Provisioner(prov).VolumeMode(corev1.PersistentVolumeBlock).CloneStrategy(cdiv1.CloneStrategyCsiClone).Obj(),
		}
		if prov != linstor {
			objs = append(objs, fixtures.Driver(prov))
		}
		return with(objs...)
	}
	mismatch := []finding{f(guard.StorageClassMismatch, "storageClass")}
	runCDICases(t, map[string]cdiCase{
		"same driver": {
			reason:   "a second LINSTOR class: CDI attempts a cross-class CSI clone",
			cdi:      "csi-clone",
			pool:     setClass("local"),
			state:    second("local", linstor),
			refusals: mismatch,
			detail:   says([]string{"cross-class"}, []string{"different CSI drivers"}),
		},
		"another driver": {
			reason:   "a class of Ceph: CDI copies (\"Provisioners are incompatible\")",
			cdi:      "host-assisted",
			pool:     setClass("ceph"),
			state:    second("ceph", otherDriver),
			refusals: mismatch,
			detail:   says([]string{"copy the image over the pod network", "Provisioners are incompatible"}, []string{"cross-class"}),
		},
		"golden's driver unknown": {
			reason:   "the golden's volume was not read: either",
			cdi:      "csi-clone",
			pool:     setClass("local"),
			state:    all(second("local", linstor), func(s *state.State) { s.Observed &^= state.PersistentVolume }),
			refusals: mismatch,
			warnings: []finding{f(guard.StateUnverified, "PersistentVolume")},
			detail:   says([]string{"different CSI drivers", "cross-class"}, nil),
		},
	})
}

// TestCDIStateUnverifiedRefusesNothing: where a cause rests on a kind not
// observed, the plan says so and refuses nothing, even when the cause
// holds.
func TestCDIStateUnverifiedRefusesNothing(t *testing.T) {
	runCDICases(t, map[string]cdiCase{
		"CSIDrivers unknown, none there": {
			reason:   "NoPopulator rests on the CSIDrivers",
			cdi:      "host-assisted",
			state:    func(s *state.State) { s.CSIDrivers = nil; s.Observed &^= state.CSIDriver },
			warnings: []finding{f(guard.StateUnverified, "CSIDriver")},
		},
		"VolumeSnapshotClasses unknown, snapshot strategy": {
			reason: "NoVolumeSnapshotClass rests on the VolumeSnapshotClasses",
			cdi:    "host-assisted",
			state: all(noOverride, func(s *state.State) {
				s.Observed &^= state.VolumeSnapshotClass
				spOf(s, replicated).Status.CloneStrategy = nil
			}),
			warnings: []finding{f(guard.StateUnverified, "VolumeSnapshotClass")},
		},
		"PVCs unknown, snapshot strategy, no VolumeSnapshotClass": {
			reason: "the golden's PVC exists unseen, and the driver CDI reads is its bound volume's: NoVolumeSnapshotClass rests on the PVCs (neighbour: \"no status strategy\" in TestCDICloneStrategyStatusNotSpec refuses with them seen)",
			cdi:    "host-assisted",
			state: all(noOverride, func(s *state.State) {
				spOf(s, replicated).Status.CloneStrategy = nil
				s.PersistentVolumeClaims, s.Observed = nil, s.Observed&^state.PersistentVolumeClaim
			}),
			warnings: []finding{f(guard.StateUnverified, "PersistentVolumeClaim")},
		},
		"CDIConfig unknown, Block disk": {
			reason:   "a Block disk is not inflated, so only whether CDI renders at all rests on the config",
			cdi:      "csi-clone",
			state:    func(s *state.State) { s.Observed &^= state.CDIConfig },
			warnings: []finding{f(guard.StateUnverified, "CDIConfig")},
		},
	})
}
