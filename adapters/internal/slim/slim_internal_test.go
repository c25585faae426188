package slim

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// slim is a copy of st whose every object went through the cache's
// transform.
func slim(t interface{ Fatal(...any) }, st *state.State) *state.State {
	out := plantest.CopyState(st)
	each := func(o any) {
		if _, err := Transform(o); err != nil {
			t.Fatal(err)
		}
	}
	for i := range out.StorageClasses {
		each(&out.StorageClasses[i])
	}
	for i := range out.PersistentVolumeClaims {
		each(&out.PersistentVolumeClaims[i])
	}
	for i := range out.DataVolumes {
		each(&out.DataVolumes[i])
	}
	for i := range out.StorageProfiles {
		each(&out.StorageProfiles[i])
	}
	for i := range out.CDIs {
		each(&out.CDIs[i])
	}
	for i := range out.CSIDrivers {
		each(&out.CSIDrivers[i])
	}
	for i := range out.VolumeSnapshotClasses {
		each(&out.VolumeSnapshotClasses[i])
	}
	for i := range out.CDIConfigs {
		each(&out.CDIConfigs[i])
	}
	for i := range out.PersistentVolumes {
		each(&out.PersistentVolumes[i])
	}
	return out
}

// What a plan, a catalog render, a prune and the catalog read back from
// the cluster say is the same over the cache's slimmed objects as over
// whole ones, in consistent and inconsistent worlds: the transform drops
// nothing any of them reads.
func TestTransformKeepsWhatIsRead(t *testing.T) {
	for _, inconsistent := range []bool{false, true} {
		rapid.Check(t, func(t *rapid.T) {
			s := plantest.Scenarios(plantest.Options{Inconsistent: inconsistent}).Draw(t, "scenario")
			served := fleet.Served(s.State)
			respell(served)
			whole, thin := state.NewSnapshot(served), state.NewSnapshot(slim(t, served))
			cat := catalog.Compile(s.Catalog)
			same(t, plan.PlanAll(s.Pools, cat, whole), plan.PlanAll(s.Pools, cat, thin), "plans")
			wr, werr := catalog.Render(cat, whole)
			tr, terr := catalog.Render(cat, thin)
			same(t, werr, terr, "catalog render")
			same(t, wr, tr, "catalog render")
			same(t, catalog.Prune(cat, whole, plan.PoolGolden), catalog.Prune(cat, thin, plan.PoolGolden), "prune")
			wc, ww := catalog.FromCluster(whole)
			tc, tw := catalog.FromCluster(thin)
			same(t, ww, tw, "read back")
			same(t, wc, tc, "read back")
		})
	}
}

func same(t assert.TestingT, a, b any, what string) { assert.Equal(t, a, b, what) }

// respell parses every quantity of the disks' resources again from the
// spelling it marshals to, as the cache's table does: two quantities that
// marshal alike then compare alike, whichever the table kept.
func respell(st *state.State) {
	fix := func(m corev1.ResourceList) {
		for k, q := range m {
			m[k] = Spelt(q)
		}
	}
	for i := range st.PersistentVolumeClaims {
		fix(st.PersistentVolumeClaims[i].Spec.Resources.Requests)
		fix(st.PersistentVolumeClaims[i].Status.Capacity)
	}
	for i := range st.DataVolumes {
		if s := st.DataVolumes[i].Spec.Storage; s != nil {
			fix(s.Resources.Requests)
		}
		if s := st.DataVolumes[i].Spec.PVC; s != nil {
			fix(s.Resources.Requests)
		}
	}
	for i := range st.PersistentVolumes {
		fix(st.PersistentVolumes[i].Spec.Capacity)
	}
}

func TestTransformDropsWhatIsNot(t *testing.T) {
	d := fleet.ServedDisks(1, 1)
	pvc, dv, pv := &d.PVCs[0], &d.DataVolumes[0], &d.Volumes[0]
	pvc.Annotations[corev1.LastAppliedConfigAnnotation] = "{}"
	for _, o := range []any{pvc, dv, pv} {
		_, err := Transform(o)
		require.NoError(t, err)
	}
	for _, m := range []metav1.ObjectMeta{pvc.ObjectMeta, dv.ObjectMeta, pv.ObjectMeta} {
		assert.Nil(t, m.ManagedFields, m.Name)
		assert.Nil(t, m.OwnerReferences, m.Name)
		assert.Nil(t, m.Finalizers, m.Name)
		assert.NotContains(t, m.Annotations, corev1.LastAppliedConfigAnnotation)
		assert.NotContains(t, m.Annotations, "cdi.kubevirt.io/storage.clone.token")
		assert.NotContains(t, m.Labels, "app")
	}
	assert.Contains(t, pvc.Annotations, "kubernetes-worker-image.cozystack.io/golden", "the disk's own annotations are read")
	assert.Contains(t, pvc.Annotations, "cdi.kubevirt.io/storage.usePopulator")
	assert.Equal(t, corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: pvc.Status.Capacity}, pvc.Status)
	assert.Equal(t, "replicated.csi.example.com", pv.Spec.CSI.Driver)
	assert.Empty(t, pv.Spec.CSI.VolumeAttributes)
	assert.Nil(t, pv.Spec.NodeAffinity)
	assert.Equal(t, pvc.Name, pv.Spec.ClaimRef.Name)
	assert.Empty(t, pv.Spec.ClaimRef.ResourceVersion)
	for _, c := range dv.Status.Conditions {
		assert.Empty(t, c.Message)
		assert.True(t, c.LastHeartbeatTime.IsZero())
	}
	assert.Equal(t, cdiv1.Succeeded, dv.Status.Phase)
	assert.Empty(t, dv.Status.Progress)

	t.Run("Unstructured", func(t *testing.T) {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"values": map[string]any{"a": "b"}}}}
		u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "helm"}})
		u.SetAnnotations(map[string]string{corev1.LastAppliedConfigAnnotation: "{}", "other": "kept"})
		_, err := Transform(u)
		require.NoError(t, err)
		assert.Nil(t, u.GetManagedFields())
		assert.Equal(t, map[string]string{"other": "kept"}, u.GetAnnotations(), "a pool's or release's other annotations stay")
		assert.Equal(t, "b", u.Object["spec"].(map[string]any)["values"].(map[string]any)["a"])

		hr := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"spec":   map[string]any{"values": map[string]any{"a": "b"}},
			"status": map[string]any{"history": []any{map[string]any{"chartVersion": "0.1.0"}}},
		}}
		hr.SetNamespace("t")
		hr.SetName("r")
		hr.SetUID("u")
		hr.SetResourceVersion("7")
		hr.SetGeneration(2)
		hr.SetLabels(map[string]string{"app": "x"})
		hr.SetOwnerReferences([]metav1.OwnerReference{{Kind: "X", Name: "o"}})
		hr.SetFinalizers([]string{"finalizers.fluxcd.io"})
		hr.SetAnnotations(map[string]string{corev1.LastAppliedConfigAnnotation: "{}"})
		_, err = Transform(hr)
		require.NoError(t, err)
		assert.NotContains(t, hr.Object, "status", "no plan reads a status read as unstructured")
		assert.Empty(t, hr.GetOwnerReferences())
		assert.Empty(t, hr.GetFinalizers())
		assert.Nil(t, hr.GetAnnotations(), "the last-applied copy was the only annotation")
		assert.Equal(t, []string{"t", "r", "u", "7"}, []string{hr.GetNamespace(), hr.GetName(), string(hr.GetUID()), hr.GetResourceVersion()}, "what an Event and the store read stays")
		assert.EqualValues(t, 2, hr.GetGeneration())
		dv := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolume",
			"status": map[string]any{"phase": "Succeeded"},
		}}
		dv.SetOwnerReferences([]metav1.OwnerReference{{Kind: "X", Name: "o"}})
		_, err = Transform(dv)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"phase": "Succeeded"}, dv.Object["status"], "a kind whose status is read keeps it")
		assert.Len(t, dv.GetOwnerReferences(), 1)
		assert.Equal(t, map[string]string{"app": "x"}, hr.GetLabels())
		assert.Equal(t, map[string]any{"values": map[string]any{"a": "b"}}, hr.Object["spec"])
	})
	t.Run("Tombstone", func(t *testing.T) {
		out, err := Transform("not an object")
		require.NoError(t, err)
		assert.Equal(t, "not an object", out)
	})
}

// A DataVolume keeps its Running condition (type, status, reason) while it
// has not succeeded, and no condition once it has; its other conditions
// are dropped.
func TestTransformDataVolumeConditions(t *testing.T) {
	conds := []cdiv1.DataVolumeCondition{
		{Type: cdiv1.DataVolumeBound, Status: corev1.ConditionTrue, Reason: "Bound", Message: "PVC bound"},
		{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse, Reason: "Error", Message: "importer failed"},
		{Type: cdiv1.DataVolumeReady, Status: corev1.ConditionFalse},
	}
	for _, tc := range []struct {
		phase cdiv1.DataVolumePhase
		conds []cdiv1.DataVolumeCondition
		want  []cdiv1.DataVolumeCondition
	}{
		{cdiv1.Succeeded, conds, nil},
		{cdiv1.ImportInProgress, conds, []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse, Reason: "Error"}}},
		{cdiv1.Failed, conds, []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse, Reason: "Error"}}},
		{cdiv1.Failed, conds[:1], nil},
	} {
		dv := &cdiv1.DataVolume{Status: cdiv1.DataVolumeStatus{Phase: tc.phase, RestartCount: 2, Conditions: append([]cdiv1.DataVolumeCondition(nil), tc.conds...)}}
		_, err := Transform(dv)
		require.NoError(t, err)
		assert.Equal(t, tc.want, dv.Status.Conditions, "%s with %d conditions", tc.phase, len(tc.conds))
		assert.Equal(t, int32(2), dv.Status.RestartCount)
	}
}

// Volumes of one CSI driver share one CSI source, and claims one volume
// mode and one list of access modes; another driver has its own.
func TestTransformShares(t *testing.T) {
	d := fleet.ServedDisks(3, 1)
	bigger := d.DataVolumes[2].DeepCopy()
	bigger.Spec.Storage.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("41Gi")}
	_, err := Transform(bigger)
	require.NoError(t, err)
	for i := range d.PVCs {
		for _, o := range []any{&d.PVCs[i], &d.Volumes[i], &d.DataVolumes[i]} {
			_, err := Transform(o)
			require.NoError(t, err)
		}
	}
	assert.Same(t, d.Volumes[0].Spec.CSI, d.Volumes[1].Spec.CSI)
	assert.Same(t, d.PVCs[0].Spec.VolumeMode, d.PVCs[1].Spec.VolumeMode)
	assert.Same(t, &d.PVCs[0].Spec.AccessModes[0], &d.PVCs[1].Spec.AccessModes[0])
	assert.Same(t, d.PVCs[0].Spec.StorageClassName, d.PVCs[1].Spec.StorageClassName)
	assert.Same(t, d.DataVolumes[0].Spec.Source, d.DataVolumes[1].Spec.Source, "one golden, one source")
	assert.Same(t, d.DataVolumes[0].Spec.Storage, d.DataVolumes[1].Spec.Storage, "one size on one class, one storage")
	assert.NotSame(t, d.DataVolumes[2].Spec.Storage, bigger.Spec.Storage)
	assert.Equal(t, "41Gi", bigger.Spec.Storage.Resources.Requests.Storage().String())
	other := &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{
		ClaimRef:               &corev1.ObjectReference{Namespace: "tenant", Name: "x"},
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "other.csi.example.com", VolumeHandle: "h"}},
	}}
	_, err = Transform(other)
	require.NoError(t, err)
	assert.Equal(t, "other.csi.example.com", other.Spec.CSI.Driver)
	assert.NotSame(t, d.Volumes[0].Spec.CSI, other.Spec.CSI)
}

// An informer that streams its first list transforms each object twice.
// The second pass writes nothing another object reads: run with -race,
// this fails if it writes a shared storage spec or source while another
// disk's are read.
func TestTransformTwiceWritesNothingShared(t *testing.T) {
	d := fleet.ServedDisks(2, 1)
	for i := range d.DataVolumes {
		_, err := Transform(&d.DataVolumes[i])
		require.NoError(t, err)
	}
	require.Same(t, d.DataVolumes[0].Spec.Storage, d.DataVolumes[1].Spec.Storage)
	st, src := d.DataVolumes[0].Spec.Storage, d.DataVolumes[0].Spec.Source
	class, size := *st.StorageClassName, st.Resources.Requests.Storage().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			o := &d.DataVolumes[1]
			_ = *o.Spec.Storage.StorageClassName + o.Spec.Source.PVC.Namespace + o.Spec.Source.PVC.Name
			_ = o.Spec.Storage.Resources.Requests.Storage()
		}
	}()
	for range 200 {
		_, err := Transform(&d.DataVolumes[0])
		require.NoError(t, err)
	}
	<-done
	assert.Same(t, st, d.DataVolumes[0].Spec.Storage, "the shared spec stays the one shared")
	assert.Same(t, src, d.DataVolumes[0].Spec.Source)
	assert.Equal(t, class, *d.DataVolumes[0].Spec.Storage.StorageClassName)
	assert.Equal(t, size, d.DataVolumes[0].Spec.Storage.Resources.Requests.Storage().String())
}

// storageKey says every field of a StorageSpec: one CDI adds is a field
// the key must say, or a reason not to share.
func TestStorageKeySaysEveryField(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[cdiv1.StorageSpec]().Fields() {
		fields = append(fields, f.Name)
	}
	assert.Equal(t, []string{"AccessModes", "Selector", "Resources", "VolumeName", "StorageClassName", "VolumeMode", "DataSource", "DataSourceRef"}, fields)
	var res []string
	for f := range reflect.TypeFor[corev1.VolumeResourceRequirements]().Fields() {
		res = append(res, f.Name)
	}
	assert.Equal(t, []string{"Limits", "Requests"}, res)
	_, ok := storageKey(&cdiv1.StorageSpec{Selector: &metav1.LabelSelector{}})
	assert.False(t, ok, "a selector is not shared")
	_, ok = storageKey(&cdiv1.StorageSpec{VolumeName: "pv"})
	assert.True(t, ok)
}
