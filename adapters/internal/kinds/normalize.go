package kinds

import (
	"cmp"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// Normalize gives every object of st its apiVersion and kind and sorts each
// slice by namespace and name, so that a State does not depend on which
// client read it (typed clients drop the type of list items) nor on the
// order the server or the file listed the objects in.
func Normalize(st *state.State) {
	typed(st.StorageClasses, state.StorageClass, func(o *storagev1.StorageClass) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.PersistentVolumeClaims, state.PersistentVolumeClaim, func(o *corev1.PersistentVolumeClaim) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.DataVolumes, state.DataVolume, func(o *cdiv1.DataVolume) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.StorageProfiles, state.StorageProfile, func(o *cdiv1.StorageProfile) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.CDIs, state.CDI, func(o *cdiv1.CDI) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.CSIDrivers, state.CSIDriver, func(o *storagev1.CSIDriver) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.VolumeSnapshotClasses, state.VolumeSnapshotClass, func(o *snapshotv1.VolumeSnapshotClass) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.CDIConfigs, state.CDIConfig, func(o *cdiv1.CDIConfig) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.PersistentVolumes, state.PersistentVolume, func(o *corev1.PersistentVolume) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.KubevirtMachineTemplates, state.KubevirtMachineTemplate, func(o *capk.KubevirtMachineTemplate) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.VirtualMachines, state.VirtualMachine, func(o *kubevirtv1.VirtualMachine) *metav1.TypeMeta { return &o.TypeMeta })
	typed(st.DataSources, state.DataSource, func(o *cdiv1.DataSource) *metav1.TypeMeta { return &o.TypeMeta })
	for k, objs := range map[state.Kind][]unstructured.Unstructured{state.KubernetesNodes: st.KubernetesNodes, state.HelmRelease: st.HelmReleases} {
		for i := range objs {
			objs[i].SetGroupVersionKind(Of(k).GVK)
		}
	}

	sortByKey(st.StorageClasses, func(o *storagev1.StorageClass) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.PersistentVolumeClaims, func(o *corev1.PersistentVolumeClaim) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.DataVolumes, func(o *cdiv1.DataVolume) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.StorageProfiles, func(o *cdiv1.StorageProfile) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.CDIs, func(o *cdiv1.CDI) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.CSIDrivers, func(o *storagev1.CSIDriver) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.VolumeSnapshotClasses, func(o *snapshotv1.VolumeSnapshotClass) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.CDIConfigs, func(o *cdiv1.CDIConfig) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.PersistentVolumes, func(o *corev1.PersistentVolume) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.KubevirtMachineTemplates, func(o *capk.KubevirtMachineTemplate) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.VirtualMachines, func(o *kubevirtv1.VirtualMachine) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(st.DataSources, func(o *cdiv1.DataSource) *metav1.ObjectMeta { return &o.ObjectMeta })
	for _, objs := range [][]unstructured.Unstructured{st.KubernetesNodes, st.HelmReleases} {
		sort.SliceStable(objs, func(i, j int) bool {
			a, b := &objs[i], &objs[j]
			return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName())) < 0
		})
	}

	slices.SortFunc(st.Objects, compareRefs)
}

func typed[T any](objs []T, k state.Kind, meta func(*T) *metav1.TypeMeta) {
	gvk := Of(k).GVK
	for i := range objs {
		m := meta(&objs[i])
		m.APIVersion, m.Kind = gvk.GroupVersion().String(), gvk.Kind
	}
}

func sortByKey[T any](objs []T, meta func(*T) *metav1.ObjectMeta) {
	less := func(a, b *metav1.ObjectMeta) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	}
	sorted := true
	for i := 1; i < len(objs) && sorted; i++ {
		sorted = less(meta(&objs[i-1]), meta(&objs[i])) <= 0
	}
	if sorted {
		return
	}
	// The objects are large (a PVC is half a kilobyte): their indices are
	// sorted, and each object is then moved once, not once per swap.
	order := make([]int, len(objs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return less(meta(&objs[i]), meta(&objs[j])) })
	// In place, one cycle of the permutation at a time.
	for i := range order {
		if order[i] == i || order[i] < 0 {
			continue
		}
		held := objs[i]
		at := i
		for order[at] != i {
			next := order[at]
			objs[at] = objs[next]
			order[at] = -1
			at = next
		}
		objs[at] = held
		order[at] = -1
	}
}

func compareRefs(a, b state.Ref) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}
