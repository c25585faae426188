package plan_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The cluster the tests of CDI's rules start from (a Cozystack cluster on LINSTOR):
// Cozystack's LINSTOR class "replicated" (the default) with its CSIDriver
// and volume expansion; its StorageProfile as CDI reconciles it, status
// {cloneStrategy: csi-clone, claimPropertySets: [{accessModes:
// [ReadWriteMany], volumeMode: Block}]}; the CDI resource with Cozystack's
// cloneStrategyOverride csi-clone and CDI's CDIConfig "config" (overhead
// 0.06); the golden imported on "replicated", its PVC a 6Gi Block volume
// (request = capacity) bound to a CSI volume of LINSTOR. The pool is the
// builtin pool, 20Gi on "replicated". On it CDI v1.64.0 makes a CSI clone.
const (
	linstor      = fixtures.ReplicatedProvisioner
	replicated   = fixtures.ReplicatedClass
	otherDriver  = "rbd.csi.ceph.com"
	unknownProv  = "example.com/unknown"
	goldenVolume = "pv-golden"
)

// linstorObjects are the base state's objects, new on every call.
func linstorObjects() []client.Object {
	claim := fixtures.GoldenClaim(fixtures.DefaultSchematicID, fixtures.DefaultVersion).VolumeName(goldenVolume).Obj()
	vol := fixtures.VolumeOf(claim, linstor)
	return []client.Object{
		linstorClass(replicated).Default().Obj(),
		fixtures.Driver(linstor),
		linstorProfile(replicated).Obj(),
		fixtures.CDI(ptr.To(cdiv1.CloneStrategyCsiClone)),
		fixtures.CDIConfig(fixtures.DefaultOverhead, replicated),
		fixtures.GoldenVolume(fixtures.DefaultSchematicID, fixtures.DefaultVersion).Obj(),
		claim,
		vol,
	}
}

// linstorClass is a class of LINSTOR that binds at once and expands.
func linstorClass(name string) *fixtures.ClassBuilder {
	return fixtures.StorageClass(name).Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingImmediate)
}

// linstorProfile is the StorageProfile CDI writes for a LINSTOR class:
// csi-clone, one Block ReadWriteMany set.
func linstorProfile(class string) *fixtures.ProfileBuilder {
	return fixtures.StorageProfile(class).Provisioner(linstor).VolumeMode(corev1.PersistentVolumeBlock).CloneStrategy(cdiv1.CloneStrategyCsiClone)
}

func linstorState() *state.State { return fixtures.State(state.AllKinds, linstorObjects()...) }

// with adds objects to a state.
func with(objs ...client.Object) func(*state.State) {
	return func(s *state.State) {
		o := fixtures.State(0, objs...)
		s.StorageClasses = append(s.StorageClasses, o.StorageClasses...)
		s.CSIDrivers = append(s.CSIDrivers, o.CSIDrivers...)
		s.StorageProfiles = append(s.StorageProfiles, o.StorageProfiles...)
		s.CDIs = append(s.CDIs, o.CDIs...)
		s.CDIConfigs = append(s.CDIConfigs, o.CDIConfigs...)
		s.VolumeSnapshotClasses = append(s.VolumeSnapshotClasses, o.VolumeSnapshotClasses...)
		s.DataVolumes = append(s.DataVolumes, o.DataVolumes...)
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, o.PersistentVolumeClaims...)
		s.PersistentVolumes = append(s.PersistentVolumes, o.PersistentVolumes...)
	}
}

// The objects of the base state, to change in place.

func scOf(s *state.State, name string) *storagev1.StorageClass {
	for i := range s.StorageClasses {
		if s.StorageClasses[i].Name == name {
			return &s.StorageClasses[i]
		}
	}
	panic("no class " + name)
}

func spOf(s *state.State, name string) *cdiv1.StorageProfile {
	for i := range s.StorageProfiles {
		if s.StorageProfiles[i].Name == name {
			return &s.StorageProfiles[i]
		}
	}
	panic("no profile " + name)
}

func claimOf(s *state.State) *corev1.PersistentVolumeClaim {
	for i := range s.PersistentVolumeClaims {
		if p := &s.PersistentVolumeClaims[i]; p.Namespace == naming.GoldenNamespace && p.Name == golden {
			return p
		}
	}
	panic("no golden PVC")
}

func volumeOf(s *state.State) *corev1.PersistentVolume {
	for i := range s.PersistentVolumes {
		if s.PersistentVolumes[i].Name == goldenVolume {
			return &s.PersistentVolumes[i]
		}
	}
	panic("no golden volume")
}

func cdiOf(s *state.State) *cdiv1.CDI { return &s.CDIs[0] }

// noOverride drops Cozystack's cloneStrategyOverride: the StorageProfile's
// strategy decides.
func noOverride(s *state.State) { cdiOf(s).Spec.CloneStrategyOverride = nil }

// filesystem makes the disk render Filesystem (the profile's first set)
// and the golden a Filesystem PVC, so that the volume modes agree.
func filesystem(s *state.State) {
	spOf(s, replicated).Status.ClaimPropertySets[0].VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	claimOf(s).Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	volumeOf(s).Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
}

// goldenSizes sets the golden PVC's request and bound capacity.
func goldenSizes(request, capacity string) func(*state.State) {
	return func(s *state.State) {
		c := claimOf(s)
		c.Spec.Resources.Requests[corev1.ResourceStorage] = quantityOf(request)
		c.Status.Capacity[corev1.ResourceStorage] = quantityOf(capacity)
		volumeOf(s).Spec.Capacity[corev1.ResourceStorage] = quantityOf(capacity)
	}
}

// pvcOnly drops the golden's DataVolume (CDI garbage-collected it): the
// PVC is the golden.
func pvcOnly(s *state.State) { s.DataVolumes = nil }

func quantityOf(s string) resource.Quantity { return resource.MustParse(s) }

func diskSize(size string) func(*plan.Pool) { return func(p *plan.Pool) { p.Spec.DiskSize = size } }

// cdiCase is a plan on the base state, with what CDI v1.64.0 does with the
// disk: its verdict, in the oracle's words (csi-clone, snapshot,
// host-assisted, fails, waits, never-renders, rejected-at-admission), and
// the refusals and warnings that verdict calls for.
type cdiCase struct {
	reason string
	cdi    string
	pool   func(*plan.Pool)
	state  func(*state.State)
	// refusals and warnings compare reason and field; StateUnverified by
	// the kind it names.
	refusals []finding
	warnings []finding
	// detail is checked against the first refusal's message, when set, or
	// the first of reason detailOf.
	detail   func(t *testing.T, msg string)
	detailOf guard.Reason
}

func reasonsOf(fs []finding) []guard.Reason {
	var out []guard.Reason
	for _, f := range fs {
		if !slices.Contains(out, f.Reason) {
			out = append(out, f.Reason)
		}
	}
	return out
}

func runCDI(t *testing.T, tc cdiCase) {
	t.Helper()
	p := builtinPool()
	if tc.pool != nil {
		tc.pool(&p)
	}
	st := linstorState()
	if tc.state != nil {
		tc.state(st)
	}
	res, err := plan.Plan(p, enabledCatalog(), state.NewSnapshot(st))
	assert.Equal(t, sorted(tc.refusals...), refusalsOf(err), "refusals; CDI: %s; %s", tc.cdi, tc.reason)
	assert.Equal(t, sorted(tc.warnings...), warningsOf(res.Warnings), "warnings; CDI: %s; %s", tc.cdi, tc.reason)
	// The outcome follows CDI's verdict, but for the two rules that are the
	// library's own: one class per flavor (StorageClassMismatch refuses a
	// cross-class clone CDI would attempt), and what was not observed
	// proves nothing (StateUnverified refuses no copy).
	clones := tc.cdi == "csi-clone" || tc.cdi == "snapshot" || tc.cdi == "waits"
	switch {
	case len(tc.refusals) == 0:
		assert.Equal(t, plan.Planned, res.Outcome)
		if !clones {
			assert.Contains(t, reasonsOf(tc.warnings), guard.StateUnverified, "a plan CDI would not clone passes only unverified")
		}
	default:
		assert.Equal(t, plan.Refused, res.Outcome)
		if clones {
			assert.Equal(t, []guard.Reason{guard.StorageClassMismatch}, reasonsOf(tc.refusals), "a clone CDI makes is refused only for its class")
		}
	}
	if tc.detail != nil && assert.NotEmpty(t, res.Refusals) {
		r := res.Refusals[0]
		for _, x := range res.Refusals {
			if x.Reason == tc.detailOf {
				r = x
				break
			}
		}
		assert.Equal(t, tc.detailOf == "" || r.Reason == tc.detailOf, true, "a refusal %s", tc.detailOf)
		tc.detail(t, r.Detail)
	}
}
