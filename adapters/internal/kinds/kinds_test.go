package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func TestByGVK(t *testing.T) {
	cases := map[string]struct {
		reason string
		gvk    schema.GroupVersionKind
		want   state.Kind
	}{
		"PVC":        {"the core group's PVC", schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, state.PersistentVolumeClaim},
		"DataVolume": {"CDI's served version", schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "DataVolume"}, state.DataVolume},
		"OldVersion": {"another version is not read with this version's schema", schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1alpha1", Kind: "DataVolume"}, 0},
		"SameTypes":  {"KubeVirt serves v1alpha3 from its v1 types", schema.GroupVersionKind{Group: "kubevirt.io", Version: "v1alpha3", Kind: "VirtualMachine"}, state.VirtualMachine},
		"OtherKubeVirtVersion": {"a KubeVirt version not served from the v1 types is not read",
			schema.GroupVersionKind{Group: "kubevirt.io", Version: "v2", Kind: "VirtualMachine"}, 0},
		"OtherGroup":  {"a kind of the same name in another group is another kind", schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "StorageClass"}, 0},
		"UnknownKind": {"a kind the planner does not read", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			info, _ := ByGVK(tc.gvk)
			assert.Equal(t, tc.want, info.Kind, tc.reason)
		})
	}
}

func TestByGroupKind(t *testing.T) {
	cases := map[string]struct {
		reason string
		gk     schema.GroupKind
		want   state.Kind
	}{
		"AnyVersion": {"the group and kind name the kind, whatever the version", schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}, state.StorageClass},
		"Core":       {"the core group's PVC", schema.GroupKind{Kind: "PersistentVolumeClaim"}, state.PersistentVolumeClaim},
		"OtherGroup": {"a kind of the same name in another group is another kind", schema.GroupKind{Group: "example.com", Kind: "StorageClass"}, 0},
		"Unknown":    {"a kind the planner does not read", schema.GroupKind{Group: "apps", Kind: "Deployment"}, 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			info, _ := ByGroupKind(tc.gk)
			assert.Equal(t, tc.want, info.Kind, tc.reason)
		})
	}
}

func TestTableCoversEveryKind(t *testing.T) {
	var all state.Kind
	for _, i := range All {
		all |= i.Kind
		assert.Equal(t, i.Kind&Namespaced != 0, i.Namespaced, "%v: Namespaced agrees with the table", i.Kind)
		assert.Equal(t, i, Of(i.Kind))
	}
	assert.Equal(t, state.AllKinds, all)
}

func TestRead(t *testing.T) {
	assert.Equal(t, "StorageClass, CSIDriver (storage.k8s.io/v1); PersistentVolumeClaim, PersistentVolume (v1); "+
		"DataVolume, StorageProfile, CDI, CDIConfig, DataSource (cdi.kubevirt.io/v1beta1); VolumeSnapshotClass (snapshot.storage.k8s.io/v1); "+
		"KubevirtMachineTemplate (infrastructure.cluster.x-k8s.io/v1alpha1); VirtualMachine (kubevirt.io/v1); "+
		"KubernetesNodes (apps.cozystack.io/v1alpha1); HelmRelease (helm.toolkit.fluxcd.io/v2)", Read())
}

func TestAppendUnstructured(t *testing.T) {
	st := &state.State{}
	require.NoError(t, AppendUnstructured(st, state.CDI, map[string]any{
		"metadata": map[string]any{"name": "cdi"},
		"spec":     map[string]any{"cloneStrategyOverride": "copy"},
	}))
	require.Len(t, st.CDIs, 1)
	assert.Equal(t, "copy", string(*st.CDIs[0].Spec.CloneStrategyOverride))

	assert.Error(t, AppendUnstructured(st, state.PersistentVolumeClaim, map[string]any{"spec": "not a map"}), "a field of the wrong type")
	assert.Error(t, AppendUnstructured(st, state.CDI|state.DataVolume, map[string]any{}), "one kind at a time")
	assert.Len(t, st.PersistentVolumeClaims, 0, "a failed conversion appends nothing")
}

func TestNormalize(t *testing.T) {
	st := &state.State{
		Objects: []state.Ref{{Kind: state.DataVolume, Namespace: "a", Name: "g"}, {Kind: state.PersistentVolumeClaim, Namespace: "b", Name: "g"}},
	}
	require.NoError(t, AppendUnstructured(st, state.StorageClass, map[string]any{"metadata": map[string]any{"name": "z"}}))
	require.NoError(t, AppendUnstructured(st, state.StorageClass, map[string]any{"metadata": map[string]any{"name": "a"}}))
	require.NoError(t, AppendUnstructured(st, state.PersistentVolumeClaim, map[string]any{"metadata": map[string]any{"name": "a", "namespace": "y"}}))
	require.NoError(t, AppendUnstructured(st, state.PersistentVolumeClaim, map[string]any{"metadata": map[string]any{"name": "b", "namespace": "x"}}))
	Normalize(st)
	assert.Equal(t, []string{"a", "z"}, []string{st.StorageClasses[0].Name, st.StorageClasses[1].Name}, "by name")
	assert.Equal(t, []string{"x", "y"}, []string{st.PersistentVolumeClaims[0].Namespace, st.PersistentVolumeClaims[1].Namespace}, "by namespace first")
	assert.Equal(t, metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"}, st.StorageClasses[0].TypeMeta)
	assert.Equal(t, metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, st.PersistentVolumeClaims[0].TypeMeta)
	assert.Equal(t, state.PersistentVolumeClaim, st.Objects[0].Kind, "refs by kind")
}
