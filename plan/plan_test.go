package plan_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/diskscope"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// finding is a refusal or warning as tests compare it: reason and field.
type finding = fixtures.Finding

func f(r guard.Reason, fld string) finding { return finding{Reason: r, Field: fld} }

// refusalsOf lists err's refusals, opened as a caller opens them, sorted.
func refusalsOf(err error) []finding { return sortFindings(fixtures.Refused(err)) }

// warningsOf compares StateUnverified by the kind it names, which tells the
// six kinds apart (their field is one of two).
func warningsOf(ws guard.Warnings) []finding {
	var out []finding
	for _, w := range ws {
		fld := w.Field
		if w.Reason == guard.StateUnverified {
			fld = w.Kind
		}
		out = append(out, f(w.Reason, fld))
	}
	return sortFindings(out)
}

func sortFindings(fs []finding) []finding {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Reason != fs[j].Reason {
			return fs[i].Reason < fs[j].Reason
		}
		return fs[i].Field < fs[j].Field
	})
	return fs
}

func sorted(fs ...finding) []finding {
	if len(fs) == 0 {
		return nil
	}
	return sortFindings(append([]finding(nil), fs...))
}

type planCase struct {
	reason   string
	pool     func(*plan.Pool)
	catalog  func(*catalog.Values)
	state    func(*state.State)
	refusals []finding
	warnings []finding
}

func runPlan(t *testing.T, tc planCase, base func() plan.Pool) plan.Result {
	t.Helper()
	p := base()
	if tc.pool != nil {
		tc.pool(&p)
	}
	v := catalog.Default()
	v.Enabled = true
	if tc.catalog != nil {
		tc.catalog(&v)
	}
	st := fullState()
	if tc.state != nil {
		tc.state(st)
	}
	res, err := plan.Plan(p, catalog.Compile(v), state.NewSnapshot(st))
	assert.Equal(t, sorted(tc.refusals...), refusalsOf(err), "refusals (-want +got); %s", tc.reason)
	assert.Equal(t, sorted(tc.warnings...), warningsOf(res.Warnings), "warnings; %s", tc.reason)
	assert.Equal(t, res.Refusals.Err(), err, "the error is the result's refusals")
	assert.Equal(t, refusalsOf(err), sortFindings(fixtures.Of(res.Refusals)), "the error and the result hold the same refusals")
	if len(tc.refusals) == 0 {
		assert.Equal(t, plan.Planned, res.Outcome)
		assert.NoError(t, err)
	} else {
		assert.Equal(t, plan.Refused, res.Outcome)
		assert.Empty(t, res.Disk.Name, "a refused pool has no disk")
		for _, r := range res.Refusals {
			assert.Contains(t, r.Error(), "pool "+p.Namespace+"/"+p.Name, "every message names the pool")
		}
	}
	return res
}

func setClass(c string) func(*plan.Pool) { return func(p *plan.Pool) { p.Spec.StorageClass = c } }

func setGoldenPhase(phase cdiv1.DataVolumePhase, restarts int32, running corev1.ConditionStatus, reason string) func(*state.State) {
	return func(s *state.State) {
		dv := &s.DataVolumes[0]
		dv.Status.Phase = phase
		dv.Status.RestartCount = restarts
		if running != "" {
			dv.Status.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: running, Reason: reason}}
		}
	}
}

func dropGolden(s *state.State) {
	s.DataVolumes = nil
	s.PersistentVolumeClaims = s.PersistentVolumeClaims[1:]
}

func addDisks(disks ...corev1.PersistentVolumeClaim) func(*state.State) {
	return func(s *state.State) { s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, disks...) }
}

func all(fs ...func(*state.State)) func(*state.State) {
	return func(s *state.State) {
		for _, f := range fs {
			f(s)
		}
	}
}

// TestClonePath triggers each refusal and warning of a builtin pool, each
// next to a case just clear of it.
func TestClonePath(t *testing.T) {
	cases := map[string]planCase{
		"healthy": {reason: "the golden is populated on the pool's class"},
		"ConflictingImageSource": {
			reason:   "builtin and factory together are refused",
			pool:     func(p *plan.Pool) { p.Spec.OSImage.Factory = &plan.Factory{} },
			refusals: []finding{f(guard.ConflictingImageSource, "osImage")},
		},
		"ConflictingImageSource with invalid overrides": {
			reason: "the conflict hides no independent refusal: each override's own fields are checked",
			pool: func(p *plan.Pool) {
				p.Spec.OSImage.Builtin.Version = "1.0"
				p.Spec.OSImage.Factory = &plan.Factory{Flavor: catalog.Flavor{SchematicID: "ok1"}, ImageFactoryURL: "ftp://x"}
			},
			refusals: []finding{
				f(guard.ConflictingImageSource, "osImage"),
				f(guard.InvalidVersion, "osImage.builtin.version"),
				f(guard.InvalidImageFactoryURL, "osImage.factory.imageFactoryURL"),
			},
		},
		"InvalidSchematicID on builtin": {
			reason:   "the builtin's own schematicID is named",
			pool:     func(p *plan.Pool) { p.Spec.OSImage.Builtin.SchematicID = "ABC" },
			refusals: []finding{f(guard.InvalidSchematicID, "osImage.builtin.schematicID")},
		},
		"InvalidSchematicID from talos": {
			reason:   "a builtin falling back to talos.* names talos.schematicID",
			pool:     func(p *plan.Pool) { p.Spec.Talos.SchematicID = "ce4c-98" },
			refusals: []finding{f(guard.InvalidSchematicID, "talos.schematicID")},
		},
		"InvalidVersion on builtin": {
			reason:   "a version with a suffix is refused",
			pool:     func(p *plan.Pool) { p.Spec.OSImage.Builtin.Version = "v1.13.6-rc.1" },
			refusals: []finding{f(guard.InvalidVersion, "osImage.builtin.version")},
		},
		"InvalidVersion from talos": {
			reason:   "a leading zero is refused, at talos.version",
			pool:     func(p *plan.Pool) { p.Spec.Talos.Version = "v1.013.6" },
			refusals: []finding{f(guard.InvalidVersion, "talos.version")},
		},
		"builtin with its own valid flavor not in catalog": {
			reason:   "a valid flavor the catalog lacks is GoldenNotInCatalog, nothing else",
			pool:     func(p *plan.Pool) { p.Spec.OSImage.Builtin = &catalog.Flavor{SchematicID: otherID, Version: "v1.12.0"} },
			refusals: []finding{f(guard.GoldenNotInCatalog, "osImage.builtin")},
		},
		"GoldenNotInCatalog: catalog disabled": {
			reason:   "a disabled catalog serves no golden, even one left behind by keep",
			catalog:  func(v *catalog.Values) { v.Enabled = false },
			refusals: []finding{f(guard.GoldenNotInCatalog, "osImage.builtin")},
		},
		"GoldenNotInCatalog: no entry": {
			reason:   "an unmanaged golden takes no new pools",
			catalog:  func(v *catalog.Values) { v.Images = []catalog.Image{} },
			refusals: []finding{f(guard.GoldenNotInCatalog, "osImage.builtin")},
		},
		"invalid entry storage": {
			reason:   "a pool whose entry is invalid gets that entry's refusal with the entry's path",
			catalog:  func(v *catalog.Values) { v.Images[0].Storage = "six" },
			refusals: []finding{f(guard.InvalidQuantity, "images[0].storage")},
		},
		"invalid entry URL": {
			reason:   "an entry's own factory URL is validated",
			catalog:  func(v *catalog.Values) { v.Images[0].ImageFactoryURL = "https://u@factory" },
			refusals: []finding{f(guard.InvalidImageFactoryURL, "images[0].imageFactoryURL")},
		},
		"invalid global storage inherited": {
			reason:   "an entry inheriting an invalid global storage is refused at the global path",
			catalog:  func(v *catalog.Values) { v.Storage = "-1Gi" },
			refusals: []finding{f(guard.InvalidQuantity, "storage")},
		},
		"GoldenImportFailed: phase Failed": {
			reason:   "a Failed golden refuses a pool that never cloned it",
			state:    setGoldenPhase(cdiv1.Failed, 0, "", ""),
			refusals: []finding{f(guard.GoldenImportFailed, "osImage.builtin")},
		},
		"GoldenImportStalled: 3 restarts": {
			reason:   "not Succeeded, Running False and 3 restarts is still importing: CDI waits for Succeeded whatever the restarts (controller/common/util.go IsPopulated), so it is the stalled warning, never a refusal",
			state:    setGoldenPhase(cdiv1.ImportInProgress, 3, corev1.ConditionFalse, "Error"),
			warnings: []finding{f(guard.GoldenImportStalled, "osImage.builtin")},
		},
		"GoldenImportStalled: 2 restarts": {
			reason:   "restarts are stalled",
			state:    setGoldenPhase(cdiv1.ImportInProgress, 2, corev1.ConditionFalse, ""),
			warnings: []finding{f(guard.GoldenImportStalled, "osImage.builtin")},
		},
		"GoldenImportStalled: reason ImagePullFailed": {
			reason:   "Running False with ImagePullFailed is stalled",
			state:    setGoldenPhase(cdiv1.ImportScheduled, 0, corev1.ConditionFalse, "ImagePullFailed"),
			warnings: []finding{f(guard.GoldenImportStalled, "osImage.builtin")},
		},
		"GoldenPending: Running False alone": {
			reason:   "CDI reports Running False before every importer starts: only pending",
			state:    setGoldenPhase(cdiv1.ImportScheduled, 0, corev1.ConditionFalse, "Pending"),
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"GoldenPending: 3 restarts but running": {
			reason:   "restarts while Running True are not failed",
			state:    setGoldenPhase(cdiv1.ImportInProgress, 5, corev1.ConditionTrue, ""),
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"GoldenPending: not created yet": {
			reason:   "an entry whose golden does not exist yet is pending, not refused",
			state:    dropGolden,
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"PVC-only golden is populated": {
			reason: "CDI garbage-collected the DataVolume; the PVC is the golden",
			state:  func(s *state.State) { s.DataVolumes = nil },
		},
		"StorageClassMismatch": {
			reason:   "an explicit class other than the golden's would copy over the pod network",
			pool:     setClass("local"),
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
		},
		"empty class resolves to the golden's default": {
			reason: "storageClass \"\" takes the cluster default, which is the golden's class",
			pool:   setClass(""),
		},
		"StorageClassMismatch via default": {
			reason: "storageClass \"\" with another default than the golden's class",
			pool:   setClass(""),
			state: func(s *state.State) {
				s.StorageClasses[0].Annotations = nil
				s.StorageClasses[1].Annotations = isDefault()
			},
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
		},
		"DefaultStorageClassUnresolvable": {
			reason:   "an empty class, no disks yet, and no default",
			pool:     setClass(""),
			state:    func(s *state.State) { s.StorageClasses[0].Annotations = nil },
			refusals: []finding{f(guard.DefaultStorageClassUnresolvable, "storageClass")},
		},
		"no default but frozen": {
			reason: "an empty class is frozen from the pool's cloned disks, so no default is needed",
			pool:   setClass(""),
			state: all(func(s *state.State) { s.StorageClasses[0].Annotations = nil },
				addDisks(workerDisk("w1", "replicated"))),
		},
		"FrozenStorageClassConflict": {
			reason:   "the pool's cloned disks are on two classes: never resolved by list order",
			pool:     setClass(""),
			state:    addDisks(workerDisk("w1", "replicated"), workerDisk("w2", "local")),
			refusals: []finding{f(guard.FrozenStorageClassConflict, "storageClass")},
		},
		"disks of an earlier golden do not freeze": {
			reason: "only disks of this golden count",
			pool:   setClass(""),
			state: func(s *state.State) {
				d := workerDisk("w2", "local")
				d.Annotations[naming.GoldenAnnotation] = "talos-worker-abc-v1.0.0"
				s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, workerDisk("w1", "replicated"), d)
			},
		},
		"unbound disk does not freeze": {
			reason: "a pending PVC has not cloned",
			pool:   setClass(""),
			state: func(s *state.State) {
				d := workerDisk("w2", "local")
				d.Status.Phase = corev1.ClaimPending
				s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, workerDisk("w1", "replicated"), d)
			},
		},
		"DiskSmallerThanGolden: one byte less": {
			reason:   "6Gi minus one byte is below the golden's 6Gi",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "6442450943" },
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
		},
		"diskSize equal to the golden": {
			reason: "6144Mi equals 6Gi: quantities, not strings",
			pool:   func(p *plan.Pool) { p.Spec.DiskSize = "6144Mi" },
		},
		// Changed for CDI v1.64.0: CDI compares the golden's requested
		// storage with the disk's, never its capacity
		// (controller/common/util.go ValidateRequestedCloneSize, from
		// controller/datavolume/pvc-clone-controller.go validateClone and
		// controller/clone/planner.go validateSourcePVC): a 6Gi request
		// bound at 8Gi clones onto 7Gi.
		"capacity larger than request is not compared": {
			reason: "the bound capacity (8Gi) above the disk (7Gi) fails nothing: CDI compares the golden's request (6Gi)",
			pool:   func(p *plan.Pool) { p.Spec.DiskSize = "7Gi" },
			state: func(s *state.State) {
				s.PersistentVolumeClaims[0].Status.Capacity[corev1.ResourceStorage] = resource.MustParse("8Gi")
			},
		},
		"DiskSmallerThanGolden: request larger than capacity": {
			reason: "neighbour: the golden's request (8Gi) above the disk (7Gi) fails, whatever its capacity (6Gi)",
			pool:   func(p *plan.Pool) { p.Spec.DiskSize = "7Gi" },
			state: func(s *state.State) {
				s.PersistentVolumeClaims[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("8Gi")
			},
			refusals: []finding{f(guard.DiskSmallerThanGolden, "diskSize")},
		},
		"off-pattern diskSize on the clone path": {
			reason:   "a diskSize off the values schema's quantity pattern fails the release: refused InvalidValue",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "20 Gi" },
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"zero diskSize": {
			reason:   "a quantity that is not positive is refused",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "0" },
			refusals: []finding{f(guard.InvalidQuantity, "diskSize")},
		},
		"empty diskSize falls back to 20Gi": {
			reason: "\"\" in a spec means not set, as Helm's default does",
			pool:   func(p *plan.Pool) { p.Spec.DiskSize = "" },
		},
		"values' empty diskSize refused": {
			reason: "diskSize: \"\" in the values fails the chart's values schema (its quantity pattern), so the release fails: refused, the refusal alone",
			pool: func(p *plan.Pool) {
				*p = plan.DecodePool(p.Namespace, p.Name, map[string]any{"cluster": "demo", "diskSize": "", "osImage": map[string]any{"builtin": map[string]any{}}})
			},
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"values' boolean diskSize refused on the clone path": {
			reason: "the values schema takes no boolean for diskSize: refused InvalidValue, the refusal alone",
			pool: func(p *plan.Pool) {
				*p = plan.DecodePool(p.Namespace, p.Name, map[string]any{"cluster": "demo", "diskSize": true, "osImage": map[string]any{"builtin": map[string]any{}}})
			},
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"HostAssistedClone: CDI override": {
			reason:   "cloneStrategyOverride copy beats the profile",
			state:    func(s *state.State) { s.CDIs[0].Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategyHostAssisted) },
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"CDI override csi-clone beats a copy profile": {
			reason: "CDI's order: the override decides before the profile",
			state: func(s *state.State) {
				s.CDIs[0].Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategyCsiClone)
				s.StorageProfiles[0].Status.CloneStrategy = ptr.To(cdiv1.CloneStrategyHostAssisted)
			},
		},
		"HostAssistedClone: profile status": {
			reason: "the class's StorageProfile status says copy",
			state: func(s *state.State) {
				s.StorageProfiles[0].Status.CloneStrategy = ptr.To(cdiv1.CloneStrategyHostAssisted)
			},
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		// Changed for CDI v1.64.0: CDI reads the profile's
		// status.cloneStrategy, never its spec (controller/clone/planner.go
		// computeStrategyForSourcePVC): a spec not yet reconciled into the
		// status changes nothing.
		"HostAssistedClone: profile status beats spec": {
			reason: "status.cloneStrategy copy decides, whatever spec.cloneStrategy says",
			state: func(s *state.State) {
				s.StorageProfiles[0].Status.CloneStrategy = ptr.To(cdiv1.CloneStrategyHostAssisted)
				s.StorageProfiles[0].Spec.CloneStrategy = ptr.To(cdiv1.CloneStrategySnapshot)
			},
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"HostAssistedClone: no CSIDriver": {
			reason:   "a provisioner without a CSIDriver cannot clone volumes",
			state:    func(s *state.State) { s.CSIDrivers = s.CSIDrivers[1:] },
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"HostAssistedClone: no expansion": {
			reason: "a disk larger than its golden on a class without expansion",
			state: func(s *state.State) {
				s.StorageClasses[0].AllowVolumeExpansion = nil
			},
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"no expansion needed at the golden's size": {
			reason: "a disk exactly the golden's size needs no expansion",
			pool:   func(p *plan.Pool) { p.Spec.DiskSize = "6Gi" },
			state:  func(s *state.State) { s.StorageClasses[0].AllowVolumeExpansion = ptr.To(false) },
		},
		"HostAssistedClone: volume mode": {
			reason: "the profile picks Filesystem while the golden is Block",
			state: func(s *state.State) {
				s.StorageProfiles[0].Status.ClaimPropertySets[0].VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
			},
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		// Changed for CDI v1.64.0: a profile without claim property sets
		// renders no PVC at all ("no accessMode specified in
		// StorageProfile", controller/datavolume/util.go
		// getDefaultVolumeAndAccessMode); it is no Filesystem default.
		"DiskUnrenderable: profile without claim property sets": {
			reason: "no status.claimPropertySets: CDI never renders the disk's PVC, even for a Filesystem golden",
			state: func(s *state.State) {
				s.StorageProfiles[0].Status.ClaimPropertySets = nil
				s.PersistentVolumeClaims[0].Spec.VolumeMode = nil
			},
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"profile set without a volume mode is Filesystem": {
			reason: "neighbour: set[0] with access modes and no volume mode renders Filesystem (util/util.go ResolveVolumeMode): a Filesystem golden matches",
			state: func(s *state.State) {
				s.StorageProfiles[0].Status.ClaimPropertySets[0].VolumeMode = nil
				s.PersistentVolumeClaims[0].Spec.VolumeMode = nil
			},
		},
		"HostAssistedClone: every proven cause": {
			reason: "each proven cause is one refusal",
			// The volume modes differ by the profile's Filesystem set (a
			// profile without sets would render nothing: DiskUnrenderable).
			state: func(s *state.State) {
				s.CDIs[0].Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategyHostAssisted)
				s.CSIDrivers = nil
				s.StorageClasses[0].AllowVolumeExpansion = nil
				s.StorageProfiles[0].Status.ClaimPropertySets[0].VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
			},
			refusals: []finding{
				f(guard.HostAssistedClone, "storageClass"), f(guard.HostAssistedClone, "storageClass"),
				f(guard.HostAssistedClone, "storageClass"), f(guard.HostAssistedClone, "storageClass"),
			},
		},
		// Changed for CDI v1.64.0: StorageProfiles observed and none for the
		// class is not unknown: CDI renders no PVC ("cannot get
		// StorageProfile", controller/datavolume/util.go
		// getDefaultVolumeAndAccessMode).
		"DiskUnrenderable: no StorageProfile": {
			reason:   "the profiles were observed and the class has none: CDI never renders the disk's PVC",
			state:    func(s *state.State) { s.StorageProfiles = s.StorageProfiles[1:] },
			refusals: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"StorageProfiles unknown refuses nothing": {
			reason:   "neighbour: what is unknown refuses nothing",
			state:    func(s *state.State) { s.StorageProfiles = nil; s.Observed &^= state.StorageProfile },
			warnings: []finding{f(guard.StateUnverified, "StorageProfile")},
		},
		"NodeLocalStorageClass: WaitForFirstConsumer": {
			reason: "a class that binds per node warns",
			state: func(s *state.State) {
				s.StorageClasses[0].VolumeBindingMode = ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)
			},
			warnings: []finding{f(guard.NodeLocalStorageClass, "storageClass")},
		},
		"Immediate binding": {
			reason: "Immediate binding does not warn",
			state: func(s *state.State) {
				s.StorageClasses[0].VolumeBindingMode = ptr.To(storagev1.VolumeBindingImmediate)
			},
		},
		"InvalidPoolName: prefix": {
			reason:   "the name must start with <cluster>-",
			pool:     func(p *plan.Pool) { p.Name = "other-md0" },
			refusals: []finding{f(guard.InvalidPoolName, "metadata.name")},
		},
		"InvalidPoolName: no pool part": {
			reason:   "<cluster>- with nothing after it is no pool",
			pool:     func(p *plan.Pool) { p.Name = "demo-" },
			refusals: []finding{f(guard.InvalidPoolName, "metadata.name")},
		},
		"InvalidPoolName: no cluster": {
			reason:   "cluster is required",
			pool:     func(p *plan.Pool) { p.Spec.Cluster = "" },
			refusals: []finding{f(guard.InvalidPoolName, "cluster")},
		},
		// CDI on class local with diskSize 1Gi fails for the size, whatever
		// the class (controller/datavolume/pvc-clone-controller.go
		// validateClone: the Block golden's 6Gi request against 1Gi), so
		// DiskSmallerThanGolden is independent of StorageClassMismatch.
		"independent refusals together": {
			reason: "every independent refusal is reported, not only the first",
			pool: func(p *plan.Pool) {
				p.Name = "x"
				p.Spec.StorageClass = "local"
				p.Spec.DiskSize = "1Gi"
			},
			refusals: []finding{
				f(guard.InvalidPoolName, "metadata.name"),
				f(guard.StorageClassMismatch, "storageClass"),
				f(guard.DiskSmallerThanGolden, "diskSize"),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runPlan(t, tc, builtinPool) })
	}
}

// TestAlreadyCloned: a pool that has already cloned its golden is never
// refused for the golden going missing, dropping out of the catalog or
// failing; it warns GoldenUnavailable.
func TestAlreadyCloned(t *testing.T) {
	cloned := addDisks(workerDisk("w1", "replicated"))
	cases := map[string]planCase{
		"golden missing": {
			reason:   "the golden was deleted",
			state:    all(cloned, dropGolden),
			warnings: []finding{f(guard.GoldenUnavailable, "osImage.builtin")},
		},
		"golden missing, its entry on another class": {
			reason:   "the golden comes back on the class its entry names, and new workers clone from it there: a class the pool's is not is refused, gone or not",
			catalog:  func(v *catalog.Values) { v.StorageClass = "local" },
			state:    all(cloned, dropGolden),
			warnings: []finding{f(guard.GoldenUnavailable, "osImage.builtin")},
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
		},
		"golden missing, its entry on no class, the default moved": {
			reason:  "neighbour: a golden on no class its entry names comes back on the default of the day; until it is back there is no class of it to compare",
			pool:    setClass(""),
			catalog: func(v *catalog.Values) { v.StorageClass = "" },
			state: all(cloned, dropGolden, func(s *state.State) {
				s.StorageClasses[0].Annotations = nil
				s.StorageClasses[1].Annotations = isDefault()
			}),
			warnings: []finding{f(guard.GoldenUnavailable, "osImage.builtin")},
		},
		"golden dropped from the catalog": {
			reason:   "the entry was dropped; the golden is unmanaged",
			catalog:  func(v *catalog.Values) { v.Images = []catalog.Image{} },
			state:    cloned,
			warnings: []finding{f(guard.GoldenUnavailable, "osImage.builtin")},
		},
		"catalog disabled": {
			reason:   "the catalog was disabled",
			catalog:  func(v *catalog.Values) { v.Enabled = false },
			state:    cloned,
			warnings: []finding{f(guard.GoldenUnavailable, "osImage.builtin")},
		},
		"golden failed": {
			reason:   "the golden failed after the pool cloned it",
			state:    all(cloned, setGoldenPhase(cdiv1.Failed, 0, "", "")),
			warnings: []finding{f(guard.GoldenUnavailable, "osImage.builtin")},
		},
		"cloned by a succeeded DataVolume only": {
			reason: "a succeeded DataVolume with both annotations proves the clone",
			state: all(dropGolden, func(s *state.State) {
				s.DataVolumes = append(s.DataVolumes, cdiv1.DataVolume{
					ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "w1", Annotations: map[string]string{
						naming.GoldenAnnotation: golden, naming.PoolAnnotation: "kubernetes-demo-md0"}},
					Status: cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded},
				})
			}),
			warnings: []finding{f(guard.GoldenUnavailable, "osImage.builtin")},
		},
		"another pool's disks are no waiver": {
			reason: "the pool annotation must be this pool's CAPI name",
			state: all(dropGolden, func(s *state.State) {
				d := workerDisk("w1", "replicated")
				d.Annotations[naming.PoolAnnotation] = "kubernetes-demo-md1"
				s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, d)
			}),
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"another pool's disks do not waive a failure": {
			reason: "disks of another pool prove nothing for this one",
			state: all(setGoldenPhase(cdiv1.Failed, 0, "", ""), func(s *state.State) {
				d := workerDisk("w1", "replicated")
				d.Annotations[naming.PoolAnnotation] = "kubernetes-demo-md1"
				s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, d)
			}),
			refusals: []finding{f(guard.GoldenImportFailed, "osImage.builtin")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runPlan(t, tc, builtinPool) })
	}
}

// TestUnknownIsNeitherAbsentNorPresent: a kind that was not observed never
// proves a golden missing, a pool diskless or a cluster without default.
func TestUnknownIsNeitherAbsentNorPresent(t *testing.T) {
	unverified := func(kinds ...state.Kind) []finding {
		var out []finding
		for _, k := range kinds {
			out = append(out, f(guard.StateUnverified, k.String()))
		}
		return out
	}
	cases := map[string]planCase{
		// Offline, what CDI renders for the disk is unknown: its class, the
		// class's StorageProfile and CDI's config are said, and the
		// host-assisted causes, which rest on the rendered disk (CDI's
		// clone planner runs on the PVC it rendered), do not run, so their
		// kinds (CDI, CSIDriver) are not reached.
		"offline": {
			reason:   "nothing observed: every guard that needs the cluster warns, once per kind",
			state:    func(s *state.State) { *s = state.State{} },
			warnings: unverified(state.StorageClass, state.PersistentVolumeClaim, state.DataVolume, state.StorageProfile, state.CDIConfig),
		},
		"offline, the values prove a mismatch": {
			reason:   "an unobserved golden is its catalog entry: an explicit class against the entry's is refused offline; whether the disk renders is unknown",
			pool:     setClass("local"),
			state:    func(s *state.State) { *s = state.State{} },
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
			warnings: unverified(state.PersistentVolumeClaim, state.DataVolume, state.StorageClass, state.StorageProfile, state.CDIConfig),
		},
		"goldens unknown": {
			reason:   "DataVolumes and PVCs unknown: no GoldenPending, no refusal",
			state:    func(s *state.State) { s.Observed &^= state.DataVolume | state.PersistentVolumeClaim },
			warnings: unverified(state.DataVolume, state.PersistentVolumeClaim),
		},
		"StorageClasses unknown with an empty class": {
			reason:   "a Forbidden StorageClass list never passes or refuses silently",
			pool:     setClass(""),
			state:    func(s *state.State) { s.Observed &^= state.StorageClass },
			warnings: unverified(state.StorageClass),
		},
		"no default, disks unknown": {
			reason: "DefaultStorageClassUnresolvable rests on a pool with no disks yet",
			pool:   setClass(""),
			state: func(s *state.State) {
				s.StorageClasses[0].Annotations = nil
				s.Observed &^= state.PersistentVolumeClaim
			},
			warnings: unverified(state.PersistentVolumeClaim),
		},
		"unknown disks grant no waiver": {
			reason: "a failed golden refuses when the pool's disks are not observed",
			state: all(setGoldenPhase(cdiv1.Failed, 0, "", ""), addDisks(workerDisk("w1", "replicated")), func(s *state.State) {
				s.Namespaces = []string{naming.GoldenNamespace}
			}),
			refusals: []finding{f(guard.GoldenImportFailed, "osImage.builtin")},
		},
		"CSIDrivers unknown": {
			reason:   "the missing-driver cause rests on absence: unverified",
			state:    func(s *state.State) { s.Observed &^= state.CSIDriver; s.CSIDrivers = nil },
			warnings: unverified(state.CSIDriver),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runPlan(t, tc, builtinPool) })
	}
}

// TestMovingTheDefault: moving is-default-class never turns a pool whose
// bound disks are on the golden's class from planned into refused.
func TestMovingTheDefault(t *testing.T) {
	p := builtinPool()
	p.Spec.StorageClass = ""
	st := fullState()
	st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, workerDisk("w1", "replicated"), workerDisk("w2", "replicated"))
	res, err := plan.Plan(p, enabledCatalog(), state.NewSnapshot(st))
	require.NoError(t, err)
	assert.Equal(t, storage.Resolution{Name: "replicated", From: storage.Frozen}, res.StorageClass)

	st.StorageClasses[0].Annotations = nil
	st.StorageClasses[1].Annotations = isDefault()
	res, err = plan.Plan(p, enabledCatalog(), state.NewSnapshot(st))
	require.NoError(t, err, "the default moved to local; the pool's disks stay on replicated")
	assert.Equal(t, storage.Resolution{Name: "replicated", From: storage.Frozen}, res.StorageClass)
	assert.Equal(t, "replicated", *res.Disk.Spec.Storage.StorageClassName)

	// Neighbour: the same move refuses a pool with no disks yet.
	st.PersistentVolumeClaims = st.PersistentVolumeClaims[:1]
	_, err = plan.Plan(p, enabledCatalog(), state.NewSnapshot(st))
	assert.Equal(t, []finding{f(guard.StorageClassMismatch, "storageClass")}, refusalsOf(err))
}

// TestClassWrittenIsClassCompared: the class on the disk is the one the
// comparison used, never left to the default.
func TestClassWrittenIsClassCompared(t *testing.T) {
	p := builtinPool()
	p.Spec.StorageClass = ""
	st := fullState()
	res, err := plan.Plan(p, enabledCatalog(), state.NewSnapshot(st))
	require.NoError(t, err)
	require.NotNil(t, res.Disk.Spec.Storage.StorageClassName, "the clone path always writes the class")
	assert.Equal(t, "replicated", *res.Disk.Spec.Storage.StorageClassName)
	assert.Equal(t, storage.Resolution{Name: "replicated", From: storage.Default}, res.StorageClass)

	// The virt default tier wins over the GA default: the disk gets the class
	// CDI would, and the comparison uses it.
	st.StorageClasses = append(st.StorageClasses, class("virt", provider, t0, map[string]string{storage.VirtDefaultAnnotation: "true"}))
	st.StorageProfiles = append(st.StorageProfiles, profile("virt", blockVol, cdiv1.CloneStrategyCsiClone)) // else CDI renders nothing on it
	res, err = plan.Plan(p, enabledCatalog(), state.NewSnapshot(st))
	require.ErrorIs(t, err, guard.StorageClassMismatch)
	r := res.Refusals[0]
	assert.Equal(t, guard.StorageClassMismatch, r.Reason)
	assert.Contains(t, r.Detail, `"virt" (resolved from the cluster default)`, "the message says which side came from the default")

	p.Spec.StorageClass = "local"
	res, err = plan.Plan(p, enabledCatalog(), state.NewSnapshot(fullState()))
	require.ErrorIs(t, err, guard.StorageClassMismatch)
	assert.NotContains(t, res.Refusals[0].Detail, "default", "both sides explicit: nothing said of a default")
}

func TestPlannedClone(t *testing.T) {
	p := builtinPool()
	res, err := plan.Plan(p, enabledCatalog(), state.NewSnapshot(fullState()))
	require.NoError(t, err)
	assert.Equal(t, plan.Clone, res.Source)
	assert.Equal(t, golden, res.Golden)
	assert.Equal(t, map[string]string{
		naming.GoldenAnnotation: golden,
		naming.PoolAnnotation:   "kubernetes-demo-md0",
	}, res.Disk.Annotations, "no usePopulator annotation on the clone path")
	assert.Equal(t, "disk-system", res.Disk.Name)
	assert.Equal(t, &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "cozy-public", Name: golden}}, res.Disk.Spec.Source)
	q := res.Disk.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
	assert.Equal(t, "20Gi", q.String())
	assert.Equal(t, "factory.talos.dev/installer/"+chartdefaults.SchematicID+":"+chartdefaults.Version, res.InstallerImage)
}

func TestInstallerFollowsEffectiveFlavor(t *testing.T) {
	v := catalog.Default()
	v.Enabled = true
	v.Images = append(v.Images, catalog.Image{Flavor: catalog.Flavor{SchematicID: otherID, Version: "v1.12.0"}, StorageClass: "replicated"})
	p := builtinPool()
	p.Spec.OSImage.Builtin = &catalog.Flavor{SchematicID: otherID, Version: "v1.12.0"}
	st := fullState()
	dropGolden(st)
	res, err := plan.Plan(p, catalog.Compile(v), state.NewSnapshot(st))
	require.NoError(t, err)
	assert.Equal(t, "factory.talos.dev/installer/abc123:v1.12.0", res.InstallerImage)
	assert.Equal(t, []finding{f(guard.GoldenPending, "osImage.builtin")}, warningsOf(res.Warnings))
}

func TestPlanAllAndDeterminism(t *testing.T) {
	pools := []plan.Pool{builtinPool(), httpPool()}
	pools[1].Name = "demo-md1"
	snap := state.NewSnapshot(fullState())
	a := plan.PlanAll(pools, enabledCatalog(), snap)
	b := plan.PlanAll(pools, enabledCatalog(), snap)
	assert.Equal(t, a, b)
	assert.Equal(t, plan.Clone, a[0].Source)
	assert.Equal(t, plan.HTTP, a[1].Source)
}

func TestNeeds(t *testing.T) {
	h := plan.Needs(httpPool())
	assert.Empty(t, h.Gets)
	assert.ElementsMatch(t, []state.Ref{{Kind: state.StorageClass}, {Kind: state.StorageProfile}, {Kind: state.CDIConfig}}, h.Lists,
		"the HTTP path reads what says whether CDI renders the disk, for its warnings")
	r := plan.Needs(builtinPool())
	assert.ElementsMatch(t, []state.Ref{
		{Kind: state.PersistentVolumeClaim, Namespace: naming.GoldenNamespace, Name: golden},
		{Kind: state.DataVolume, Namespace: naming.GoldenNamespace, Name: golden},
		// The volume the golden's PVC is bound to, named by the claim.
		{Kind: state.PersistentVolume, Namespace: naming.GoldenNamespace, Name: golden},
	}, r.Gets)
	assert.Len(t, r.Lists, 2+6, "the pool's namespace's disks, and the cluster-scoped kinds")
	assert.LessOrEqual(t, len(r.Gets)+len(r.Lists), 11)

	var pools []plan.Pool
	for i := range 50 {
		p := builtinPool()
		p.Namespace = fmt.Sprintf("tenant-%d", i%5)
		pools = append(pools, p)
	}
	all := plan.NeedsAll(pools)
	assert.Len(t, all.Gets, 3, "one golden and its volume, read once")
	assert.Len(t, all.Lists, 6+2*5, "cluster kinds once, disks per namespace")
}

// TestReadBackCatalog: a catalog read back from a cluster whose goldens were
// not observed refuses no flavor for being absent from it.
func TestReadBackCatalog(t *testing.T) {
	st := fullState()
	cat, _ := catalog.FromCluster(state.NewSnapshot(st))
	res, err := plan.Plan(builtinPool(), cat, state.NewSnapshot(st))
	require.NoError(t, err, "the golden read back from the cluster is in the catalog")
	assert.Empty(t, res.Warnings)

	other := builtinPool()
	other.Spec.OSImage.Builtin = &catalog.Flavor{SchematicID: otherID, Version: "v1.12.0"}
	_, err = plan.Plan(other, cat, state.NewSnapshot(st))
	assert.Equal(t, []finding{f(guard.GoldenNotInCatalog, "osImage.builtin")}, refusalsOf(err), "observed and absent: refused")

	st.Observed &^= state.DataVolume | state.PersistentVolumeClaim
	blind, _ := catalog.FromCluster(state.NewSnapshot(st))
	res, err = plan.Plan(other, blind, state.NewSnapshot(st))
	require.NoError(t, err, "unobserved goldens prove no flavor absent")
	assert.Equal(t, sorted(f(guard.StateUnverified, "DataVolume"), f(guard.StateUnverified, "PersistentVolumeClaim")), warningsOf(res.Warnings))
}

// TestUnknownGaps: what a guard needs but cannot see is said, never taken
// as absent, and a clone already made proves the golden's class.
func TestUnknownGaps(t *testing.T) {
	classless := func(s *state.State) {
		s.DataVolumes[0].Spec.Storage.StorageClassName = nil
		s.PersistentVolumeClaims = s.PersistentVolumeClaims[1:] // only the DataVolume is left
	}
	moveDefault := func(s *state.State) {
		s.StorageClasses[0].Annotations = nil
		s.StorageClasses[1].Annotations = isDefault()
	}
	noClassEntry := func(v *catalog.Values) { v.StorageClass = "" }
	cases := map[string]planCase{
		"profile copy with CDI unknown": {
			reason: "the override, if any, overrules the profile: unverified, not refused",
			state: func(s *state.State) {
				s.Observed &^= state.CDI
				s.StorageProfiles[0].Status.CloneStrategy = ptr.To(cdiv1.CloneStrategyHostAssisted)
			},
			warnings: []finding{f(guard.StateUnverified, "CDI")},
		},
		"profile copy with CDI observed": {
			reason: "neighbour: with the CDI resource seen and no override, the profile's copy refuses",
			state: func(s *state.State) {
				s.StorageProfiles[0].Status.CloneStrategy = ptr.To(cdiv1.CloneStrategyHostAssisted)
			},
			refusals: []finding{f(guard.HostAssistedClone, "storageClass")},
		},
		"expansion with the golden PVC unknown": {
			reason: "the golden's capacity may be the larger size: no expansion cause rests on it",
			state: func(s *state.State) {
				s.Observed &^= state.PersistentVolumeClaim
				s.StorageClasses[0].AllowVolumeExpansion = nil
			},
			warnings: []finding{f(guard.StateUnverified, "PersistentVolumeClaim")},
		},
		"golden PVC unknown": {
			reason: "its capacity and volume mode are unseen: said, not skipped silently",
			state: func(s *state.State) {
				s.Observed &^= state.PersistentVolumeClaim
			},
			warnings: []finding{f(guard.StateUnverified, "PersistentVolumeClaim")},
		},
		"frozen pool, classless golden, default moved": {
			reason:   "the golden's PVC is gone: CDI re-creates it from the classless DataVolume on the default as it now is (controller/datavolume/controller-base.go handlePvcCreation), another class than the disks': the pool's disks prove nothing of a PVC that does not exist",
			pool:     setClass(""),
			catalog:  noClassEntry,
			state:    all(classless, addDisks(workerDisk("w1", "replicated")), moveDefault),
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
			// Until then the disks wait (CloneWithoutSource).
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"frozen pool, classless golden bound, default moved": {
			reason:  "neighbour: while the golden's PVC exists it is on the class it was bound on: the default moving refuses nothing",
			pool:    setClass(""),
			catalog: noClassEntry,
			state: all(func(s *state.State) { s.DataVolumes[0].Spec.Storage.StorageClassName = nil },
				addDisks(workerDisk("w1", "replicated")), moveDefault),
		},
		"new pool, classless golden, default moved": {
			reason:   "neighbour: without disks the golden follows the default, the pool its explicit class",
			catalog:  noClassEntry,
			state:    all(classless, moveDefault),
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
		"clone proves nothing while the golden's PVC is unseen": {
			reason: "the golden's PVC may be bound on the pool's class: unverified, not refused",
			pool:   setClass("replicated"),
			state: func(s *state.State) {
				s.DataVolumes[0].Spec.Storage.StorageClassName = nil
				d := workerDisk("w1", "local")
				s.DataVolumes = append(s.DataVolumes, cdiv1.DataVolume{
					ObjectMeta: d.ObjectMeta,
					Spec:       cdiv1.DataVolumeSpec{Storage: &cdiv1.StorageSpec{StorageClassName: ptr.To("local")}},
					Status:     cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded},
				})
				s.Observed &^= state.PersistentVolumeClaim
			},
			warnings: []finding{f(guard.StateUnverified, "PersistentVolumeClaim")},
		},
		"cloned pool moved to another class": {
			reason:   "an explicit class other than the one the disks were cloned on is still a mismatch",
			pool:     setClass("local"),
			catalog:  noClassEntry,
			state:    all(classless, addDisks(workerDisk("w1", "replicated"))),
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
			warnings: []finding{f(guard.GoldenPending, "osImage.builtin")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runPlan(t, tc, builtinPool) })
	}
}

// TestNeedsPoolDisks: a pool's plan reads, of its namespace, its own
// disks; a pool in the goldens' namespace reads it whole (its list answers
// the golden's gets), and so does a fleet.
func TestNeedsPoolDisks(t *testing.T) {
	p := builtinPool()
	assert.Equal(t, []string{naming.PoolCAPIName(p.Name)}, diskscope.Pools(plan.Needs(p), p.Namespace))
	assert.Nil(t, diskscope.Pools(plan.Needs(httpPool()), httpPool().Namespace), "the HTTP path lists no disk")
	p.Namespace = naming.GoldenNamespace
	assert.Nil(t, diskscope.Pools(plan.Needs(p), p.Namespace))
	assert.Nil(t, diskscope.Pools(plan.NeedsAll([]plan.Pool{builtinPool()}), builtinPool().Namespace))
}
