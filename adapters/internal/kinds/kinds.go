package kinds

import (
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// Info is how the API serves one kind.
type Info struct {
	Kind       state.Kind
	GVK        schema.GroupVersionKind
	Resource   string
	Namespaced bool
}

// GVR is the kind's group, version and resource.
func (i Info) GVR() schema.GroupVersionResource { return i.GVK.GroupVersion().WithResource(i.Resource) }

// All lists the kinds the library reads, in state.Kind order.
var All = []Info{
	{state.StorageClass, storagev1.SchemeGroupVersion.WithKind("StorageClass"), "storageclasses", false},
	{state.PersistentVolumeClaim, corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"), "persistentvolumeclaims", true},
	{state.DataVolume, cdiv1.SchemeGroupVersion.WithKind("DataVolume"), "datavolumes", true},
	{state.StorageProfile, cdiv1.SchemeGroupVersion.WithKind("StorageProfile"), "storageprofiles", false},
	{state.CDI, cdiv1.SchemeGroupVersion.WithKind("CDI"), "cdis", false},
	{state.CSIDriver, storagev1.SchemeGroupVersion.WithKind("CSIDriver"), "csidrivers", false},
	{state.VolumeSnapshotClass, snapshotv1.SchemeGroupVersion.WithKind("VolumeSnapshotClass"), "volumesnapshotclasses", false},
	{state.CDIConfig, cdiv1.SchemeGroupVersion.WithKind("CDIConfig"), "cdiconfigs", false},
	{state.PersistentVolume, corev1.SchemeGroupVersion.WithKind("PersistentVolume"), "persistentvolumes", false},
	{state.KubevirtMachineTemplate, capk.GroupVersion().WithKind("KubevirtMachineTemplate"), "kubevirtmachinetemplates", true},
	{state.VirtualMachine, kubevirtv1.SchemeGroupVersion.WithKind("VirtualMachine"), "virtualmachines", true},
	{state.DataSource, cdiv1.SchemeGroupVersion.WithKind("DataSource"), "datasources", true},
	{state.KubernetesNodes, schema.FromAPIVersionAndKind(plan.PoolAPIVersion, plan.PoolKind), "kubernetesnodes", true},
	{state.HelmRelease, schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}, "helmreleases", true},
}

// Read says which kinds the library reads, for a message: each group
// version's kinds, in the order of All ("StorageClass, CSIDriver
// (storage.k8s.io/v1), …").
func Read() string {
	var groups []schema.GroupVersion
	byGroup := map[schema.GroupVersion][]string{}
	for _, i := range All {
		gv := i.GVK.GroupVersion()
		if _, ok := byGroup[gv]; !ok {
			groups = append(groups, gv)
		}
		byGroup[gv] = append(byGroup[gv], i.GVK.Kind)
	}
	parts := make([]string, len(groups))
	for n, gv := range groups {
		parts[n] = strings.Join(byGroup[gv], ", ") + " (" + gv.String() + ")"
	}
	return strings.Join(parts, "; ")
}

// Of returns the Info of one single kind.
func Of(k state.Kind) Info {
	for _, i := range All {
		if i.Kind == k {
			return i
		}
	}
	panic(fmt.Sprintf("kinds: %v is not a single kind", k))
}

// ByGVK finds the kind an apiVersion and kind name are, if the library
// reads it. Only the served version counts, and a version its group serves
// from the same types (kubevirt.io/v1alpha3 VirtualMachine is read as
// kubevirt.io/v1): another version of a kind is not read, rather than read
// with a schema it does not have (ByGroupKind finds the kind it is of).
func ByGVK(gvk schema.GroupVersionKind) (Info, bool) {
	for _, i := range All {
		if i.GVK == gvk {
			return i, true
		}
	}
	if k, ok := sameTypes[gvk]; ok {
		return Of(k), true
	}
	return Info{}, false
}

// ByGroupKind finds the kind the library reads of a group and kind name,
// in whichever version: a storage.k8s.io/v1beta1 StorageClass is of the
// kind StorageClass, which ByGVK does not read in that version.
func ByGroupKind(gk schema.GroupKind) (Info, bool) {
	for _, i := range All {
		if i.GVK.GroupKind() == gk {
			return i, true
		}
	}
	return Info{}, false
}

// sameTypes are the versions, besides the one in All, that a group serves
// from the very Go types the library decodes: KubeVirt registers its v1
// types as v1alpha3 too (kubevirtv1.GroupVersions), so a VirtualMachine
// printed as v1alpha3 is the same object, field for field.
var sameTypes = func() map[schema.GroupVersionKind]state.Kind {
	m := map[schema.GroupVersionKind]state.Kind{}
	for _, gv := range kubevirtv1.GroupVersions {
		if gv != kubevirtv1.SchemeGroupVersion {
			m[gv.WithKind("VirtualMachine")] = state.VirtualMachine
		}
	}
	return m
}()

// Namespaced is the set of kinds that live in a namespace.
const Namespaced = state.Namespaced

// AppendUnstructured converts an object decoded as a map (from YAML or a
// dynamic client) into the typed object of kind k and appends it to st.
func AppendUnstructured(st *state.State, k state.Kind, obj map[string]any) error {
	if at, err := quantityFault(k, obj); err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	conv := runtime.DefaultUnstructuredConverter
	var err error
	switch k {
	case state.StorageClass:
		var o storagev1.StorageClass
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.StorageClasses = append(st.StorageClasses, o)
		}
	case state.PersistentVolumeClaim:
		var o corev1.PersistentVolumeClaim
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, o)
		}
	case state.DataVolume:
		var o cdiv1.DataVolume
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.DataVolumes = append(st.DataVolumes, o)
		}
	case state.StorageProfile:
		var o cdiv1.StorageProfile
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.StorageProfiles = append(st.StorageProfiles, o)
		}
	case state.CDI:
		var o cdiv1.CDI
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.CDIs = append(st.CDIs, o)
		}
	case state.CSIDriver:
		var o storagev1.CSIDriver
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.CSIDrivers = append(st.CSIDrivers, o)
		}
	case state.VolumeSnapshotClass:
		var o snapshotv1.VolumeSnapshotClass
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.VolumeSnapshotClasses = append(st.VolumeSnapshotClasses, o)
		}
	case state.CDIConfig:
		var o cdiv1.CDIConfig
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.CDIConfigs = append(st.CDIConfigs, o)
		}
	case state.PersistentVolume:
		var o corev1.PersistentVolume
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.PersistentVolumes = append(st.PersistentVolumes, o)
		}
	case state.KubevirtMachineTemplate:
		var o capk.KubevirtMachineTemplate
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.KubevirtMachineTemplates = append(st.KubevirtMachineTemplates, o)
		}
	case state.VirtualMachine:
		var o kubevirtv1.VirtualMachine
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.VirtualMachines = append(st.VirtualMachines, o)
		}
	case state.DataSource:
		var o cdiv1.DataSource
		if err = conv.FromUnstructured(obj, &o); err == nil {
			st.DataSources = append(st.DataSources, o)
		}
	case state.KubernetesNodes:
		st.KubernetesNodes = append(st.KubernetesNodes, pool(obj))
	case state.HelmRelease:
		st.HelmReleases = append(st.HelmReleases, pool(obj))
	default:
		return fmt.Errorf("kinds: %v is not a single kind", k)
	}
	return err
}

// pool keeps of a KubernetesNodes or a HelmRelease what a pool's reading
// takes (its metadata and spec) and drops what only the API server and
// Flux read (managed fields, owners, finalizers, uid, resource version, and
// the status: a release's history can be many times its spec). The maps
// it changes are copies: obj is the caller's.
func pool(obj map[string]any) unstructured.Unstructured {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "status" {
			out[k] = v
		}
	}
	if meta, ok := out["metadata"].(map[string]any); ok {
		meta = maps.Clone(meta)
		for _, k := range []string{"managedFields", "ownerReferences", "finalizers", "uid", "resourceVersion"} {
			delete(meta, k)
		}
		out["metadata"] = meta
	}
	return unstructured.Unstructured{Object: out}
}
