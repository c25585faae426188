package catalog_test

import (
	"encoding/json"
	"math"
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
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The tests of this file pin rules that mutation testing (gremlins, see
// internal/invariants/README.md) found no test noticing when broken.

const (
	goldenA = "talos-worker-aaa111-v1.13.6"
	goldenB = "talos-worker-bbb222-v1.13.6"
	tenant  = "tenant-a"
)

func annotated(ns, name string, annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations}
}

// TestConsumersOfARepointedDisk: a PVC that clones a golden its same-named
// DataVolume does not (the DataVolume was re-pointed at a newer golden) is
// a consumer of that golden in its own right, with its DataVolume's pool
// when it carries none; the DataVolume is a consumer of the newer one.
func TestConsumersOfARepointedDisk(t *testing.T) {
	st := &state.State{Observed: state.AllKinds,
		DataVolumes: []cdiv1.DataVolume{{ObjectMeta: annotated(tenant, "w1",
			map[string]string{naming.GoldenAnnotation: goldenB, naming.PoolAnnotation: "kubernetes-demo-md0"})}},
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{{ObjectMeta: annotated(tenant, "w1",
			map[string]string{naming.GoldenAnnotation: goldenA})}},
	}
	snap := state.NewSnapshot(st)
	assert.Equal(t, []catalog.Consumer{{Kind: catalog.KindPersistentVolumeClaim, Namespace: tenant, Name: "w1", Pool: "kubernetes-demo-md0"}},
		catalog.Consumers(goldenA, snap).Consumers)
	assert.Equal(t, []catalog.Consumer{{Kind: catalog.KindDataVolume, Namespace: tenant, Name: "w1", Pool: "kubernetes-demo-md0"}},
		catalog.Consumers(goldenB, snap).Consumers)

	st.PersistentVolumeClaims[0].Annotations[naming.PoolAnnotation] = "kubernetes-demo-md1"
	assert.Equal(t, "kubernetes-demo-md1", catalog.Consumers(goldenA, state.NewSnapshot(st)).Consumers[0].Pool,
		"neighbour: a PVC's own pool annotation wins")
}

// TestAGoldenIsNotItsOwnConsumer: the golden's own objects in cozy-public
// do not clone it, whatever they carry; a tenant disk that happens to bear
// the golden's name does.
func TestAGoldenIsNotItsOwnConsumer(t *testing.T) {
	self := map[string]string{naming.GoldenAnnotation: goldenA}
	st := &state.State{Observed: state.AllKinds,
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{
			{ObjectMeta: annotated(naming.GoldenNamespace, goldenA, self)},
			{ObjectMeta: annotated(tenant, goldenA, self)},
		},
	}
	assert.Equal(t, []catalog.Consumer{{Kind: catalog.KindPersistentVolumeClaim, Namespace: tenant, Name: goldenA}},
		catalog.Consumers(goldenA, state.NewSnapshot(st)).Consumers)
}

// TestDataSourceOfTheCoreGroup: a PVC's dataSourceRef to a
// PersistentVolumeClaim names the core group as nil or "", and both clone;
// a kind of that name in another group is something else.
func TestDataSourceOfTheCoreGroup(t *testing.T) {
	ref := func(name string, group *string) corev1.PersistentVolumeClaim {
		return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{DataSourceRef: &corev1.TypedObjectReference{
				APIGroup: group, Kind: "PersistentVolumeClaim", Name: goldenA, Namespace: ptr.To(naming.GoldenNamespace)}}}
	}
	st := &state.State{Observed: state.AllKinds, PersistentVolumeClaims: []corev1.PersistentVolumeClaim{
		ref("empty-group", ptr.To("")), ref("nil-group", nil), ref("other-group", ptr.To("example.com")),
	}}
	var names []string
	for _, c := range catalog.Consumers(goldenA, state.NewSnapshot(st)).Consumers {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"empty-group", "nil-group"}, names)
}

// TestPVCOnlyGoldenWhileDataVolumesUnknown: a golden seen by its PVC alone
// while DataVolumes were not read may still have a DataVolume with other
// values, so render does not take the PVC for the golden: it renders the
// entry and says DataVolumes were not observed.
func TestPVCOnlyGoldenWhileDataVolumesUnknown(t *testing.T) {
	v := catalog.Default()
	v.Enabled = true
	name := naming.GoldenPrefix + catalog.DefaultSchematicID + "-" + catalog.DefaultVersion
	q := resource.MustParse("7Gi")
	golden := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("replicated"),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: q}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: q}}}
	cases := map[string]struct {
		reason   string
		observed state.Kind
		size     string
		warnings []guard.Reason
	}{
		"DataVolumes unknown": {"the PVC may not be all of the golden", state.AllKinds &^ state.DataVolume, "6Gi", []guard.Reason{guard.StateUnverified}},
		"DataVolumes read":    {"neighbour: the golden is its PVC, rendered with its size", state.AllKinds, "7Gi", nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := &state.State{Observed: tc.observed, PersistentVolumeClaims: []corev1.PersistentVolumeClaim{golden}}
			res, err := catalog.Render(catalog.Compile(v), state.NewSnapshot(st))
			require.NoError(t, err)
			var reasons []guard.Reason
			for _, w := range res.Warnings {
				reasons = append(reasons, w.Reason)
			}
			assert.Equal(t, tc.warnings, reasons, tc.reason)
			got := res.Goldens[0].Spec.Storage.Resources.Requests[corev1.ResourceStorage]
			assert.Zero(t, got.Cmp(resource.MustParse(tc.size)), "rendered %s; %s", got.String(), tc.reason)
		})
	}
}

// TestRenderJSONListsAreNeverNull: tools build on `catalog render -o json`,
// so its lists are [] when empty, never null, and kept when not.
func TestRenderJSONListsAreNeverNull(t *testing.T) {
	out, err := json.Marshal(catalog.RenderResult{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"goldens":[],"unmanaged":[],"warnings":[],"refusals":[]}`, string(out))
	out, err = json.Marshal(catalog.RenderResult{Unmanaged: []string{goldenA}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"goldens":[],"unmanaged":["`+goldenA+`"],"warnings":[],"refusals":[]}`, string(out), "neighbour: a list with names")
}

// TestSavingsCountsWorkersOnly: a pool with no workers clones nothing and
// costs no import; bytes saturate only when the product overflows.
func TestSavingsCountsWorkersOnly(t *testing.T) {
	rep := catalog.Savings([]catalog.PoolWorkers{{Golden: goldenA, Replicas: 0}, {Golden: goldenB, Replicas: 1}}, resource.MustParse("4Gi"))
	assert.Equal(t, 1, rep.Imports, "only goldenB is imported")
	assert.Equal(t, 1, rep.Workers)
	assert.Equal(t, []catalog.GoldenSavings{{Golden: goldenB, Workers: 1}}, rep.ByGolden)

	half := int64(math.MaxInt64 / 2)
	rep = catalog.Savings([]catalog.PoolWorkers{{Golden: goldenA, Replicas: 3}}, *resource.NewQuantity(half, resource.BinarySI))
	assert.Equal(t, 2*half, rep.BytesAvoided, "two imports of MaxInt64/2 bytes fit exactly")
	rep = catalog.Savings([]catalog.PoolWorkers{{Golden: goldenA, Replicas: 4}}, *resource.NewQuantity(half, resource.BinarySI))
	assert.Equal(t, int64(math.MaxInt64), rep.BytesAvoided, "neighbour: three do not, and saturate")
}

// TestGoldenOfTheOlderPVCForm: a golden DataVolume written with spec.pvc
// (CDI's older form) has its size there; a golden whose spec names no class
// is on the class its bound PVC is on.
func TestGoldenOfTheOlderPVCForm(t *testing.T) {
	q := resource.MustParse("8Gi")
	dv := cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: goldenA},
		Spec: cdiv1.DataVolumeSpec{PVC: &corev1.PersistentVolumeClaimSpec{
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: q}}}}}
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: goldenA},
		Spec:   corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("local")},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	st := &state.State{Observed: state.AllKinds, DataVolumes: []cdiv1.DataVolume{dv}, PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc}}
	g := catalog.Live(goldenA, nil, state.NewSnapshot(st))
	assert.Zero(t, g.Request.Cmp(q), "request %s", g.Request.String())
	res, err := g.ResolveClass(storage.DefaultResult{Known: true, Name: "replicated"})
	require.NoError(t, err)
	assert.Equal(t, storage.Resolution{Name: "local", From: storage.Frozen}, res)
}

// TestFromClusterWithoutState: a catalog read back from no state at all
// has no entry, and says the goldens were not observed, so that no flavor
// is refused for missing from it.
func TestFromClusterWithoutState(t *testing.T) {
	c, warnings := catalog.FromCluster(nil)
	assert.Empty(t, c.Entries)
	assert.Equal(t, state.DataVolume|state.PersistentVolumeClaim, c.Unobserved)
	assert.Len(t, warnings, 2)
}

// TestOneRestartIsStalled: an import that is not running after one
// importer restart is stalled, whatever the condition's reason; before any
// restart, and without Error or ImagePullFailed, it is only pending.
func TestOneRestartIsStalled(t *testing.T) {
	dv := func(restarts int32, reason string) cdiv1.DataVolume {
		return cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: goldenA},
			Status: cdiv1.DataVolumeStatus{Phase: cdiv1.ImportInProgress, RestartCount: restarts, Conditions: []cdiv1.DataVolumeCondition{
				{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse, Reason: reason}}}}
	}
	cases := map[string]struct {
		reason string
		dv     cdiv1.DataVolume
		want   catalog.Import
	}{
		"one restart":          {"at least one restart is stalled", dv(1, ""), catalog.Stalled},
		"no restart":           {"neighbour: CDI reports Running False before every importer starts", dv(0, "Pending"), catalog.Importing},
		"restarts before fail": {"one short of failed", dv(catalog.FailedRestarts-1, ""), catalog.Stalled},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := &state.State{Observed: state.AllKinds, DataVolumes: []cdiv1.DataVolume{tc.dv}}
			assert.Equal(t, tc.want, catalog.Live(goldenA, nil, state.NewSnapshot(st)).Import, tc.reason)
		})
	}
}

// TestEntryClassAgainstAnUnseenBinding: an entry that names a class is no
// edit of a golden that names none while the golden's PVC, which holds the
// class it is bound on, was not observed: that says StateUnverified. Seen
// bound on another class, it is an edit.
func TestEntryClassAgainstAnUnseenBinding(t *testing.T) {
	v := catalog.Default()
	v.Enabled = true
	name := naming.GoldenPrefix + catalog.DefaultSchematicID + "-" + catalog.DefaultVersion
	dv := catalog.NewGolden(&catalog.Compile(v).Entries[0])
	dv.Spec.Storage.StorageClassName = nil
	bound := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: name},
		Spec:   corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("local")},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	local := storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "local",
		Annotations: map[string]string{storage.DefaultAnnotation: "true"}}}
	cases := map[string]struct {
		reason   string
		state    *state.State
		refusals []guard.Reason
		warnings []guard.Reason
	}{
		"PVCs unknown": {
			reason:   "the golden may be bound on replicated; nothing proves an edit",
			state:    &state.State{Observed: state.AllKinds &^ state.PersistentVolumeClaim, StorageClasses: []storagev1.StorageClass{local}, DataVolumes: []cdiv1.DataVolume{dv}},
			warnings: []guard.Reason{guard.StateUnverified},
		},
		"bound on another class": {
			reason:   "neighbour: the golden is bound on local, the entry says replicated",
			state:    &state.State{Observed: state.AllKinds, StorageClasses: []storagev1.StorageClass{local}, DataVolumes: []cdiv1.DataVolume{dv}, PersistentVolumeClaims: []corev1.PersistentVolumeClaim{bound}},
			refusals: []guard.Reason{guard.CatalogEntryImmutable},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := catalog.Render(catalog.Compile(v), state.NewSnapshot(tc.state))
			assert.ElementsMatch(t, tc.refusals, guard.Reasons(err), tc.reason)
			var warnings []guard.Reason
			for _, w := range res.Warnings {
				warnings = append(warnings, w.Reason)
			}
			assert.ElementsMatch(t, tc.warnings, warnings, tc.reason)
		})
	}
}
