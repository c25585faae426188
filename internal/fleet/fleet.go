package fleet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// Size says how large a cluster to build.
type Size struct {
	Goldens        int // flavors in the catalog, each with a golden DataVolume and PVC
	StorageClasses int // classes; "replicated" is the default and every golden's
	PVCs           int // tenant PVCs, spread over Namespaces
	Namespaces     int
	// DataVolumes gives every tenant PVC the DataVolume it was cloned
	// through, as KubeVirt's dataVolumeTemplates leave them.
	DataVolumes bool
	// Templates are KubevirtMachineTemplates spread over Namespaces, each
	// of a pool of its namespace, whose disk-system clones the namespace's
	// golden as the clone path renders it.
	Templates int
	// Pools are KubernetesNodes spread over Namespaces, each with the
	// kubernetes-nodes HelmRelease cozystack-api makes of it, whose spec
	// clones the namespace's golden.
	Pools int
}

// Large is the fleet of the performance issue: 1,000 goldens, 50 classes and
// 100,000 PVCs in 1,000 tenant namespaces.
var Large = Size{Goldens: 1000, StorageClasses: 50, PVCs: 100000, Namespaces: 1000}

const provisioner = "replicated.csi.example.com"

// Flavor is the i-th flavor.
func Flavor(i int) catalog.Flavor {
	return catalog.Flavor{SchematicID: fmt.Sprintf("%064x", i+1), Version: fmt.Sprintf("v1.%d.%d", 10+i/100, i%100)}
}

// Namespace is the i-th tenant namespace.
func Namespace(i int) string { return fmt.Sprintf("tenant-%04d", i) }

// Catalog is an enabled catalog of every flavor on "replicated".
func Catalog(s Size) catalog.Values {
	v := catalog.Default()
	v.Enabled = true
	v.Images = make([]catalog.Image, s.Goldens)
	for i := range v.Images {
		f := Flavor(i)
		v.Images[i] = catalog.Image{Flavor: f}
	}
	return v
}

// State is a fully observed cluster of the size: the goldens populated, and
// the tenant PVCs as the disks of pools that have already cloned them.
func State(s Size) *state.State {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &state.State{Observed: state.AllKinds}
	for i := range s.StorageClasses {
		name := fmt.Sprintf("class-%02d", i)
		var ann map[string]string
		if i == 0 {
			name, ann = "replicated", map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		}
		st.StorageClasses = append(st.StorageClasses, storagev1.StorageClass{
			ObjectMeta:           metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(i) * time.Hour)), Annotations: ann},
			Provisioner:          provisioner,
			AllowVolumeExpansion: ptr(true),
		})
		st.StorageProfiles = append(st.StorageProfiles, cdiv1.StorageProfile{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: cdiv1.StorageProfileStatus{
				CloneStrategy:     ptr(cdiv1.CloneStrategyCsiClone),
				ClaimPropertySets: []cdiv1.ClaimPropertySet{{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeMode: ptr(corev1.PersistentVolumeBlock)}},
			},
		})
	}
	st.CSIDrivers = []storagev1.CSIDriver{{ObjectMeta: metav1.ObjectMeta{Name: provisioner}}}
	st.CDIs = []cdiv1.CDI{{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}}}
	overhead := &cdiv1.FilesystemOverhead{Global: "0.06", StorageClass: map[string]cdiv1.Percent{}}
	for _, c := range st.StorageClasses {
		overhead.StorageClass[c.Name] = "0.06"
	}
	st.CDIConfigs = []cdiv1.CDIConfig{{ObjectMeta: metav1.ObjectMeta{Name: stateindex.CDIConfigName}, Status: cdiv1.CDIConfigStatus{FilesystemOverhead: overhead}}}
	six := resource.MustParse("6Gi")
	for i := range s.Goldens {
		f := Flavor(i)
		name := naming.GoldenPrefix + f.SchematicID + "-" + f.Version
		meta := metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: name,
			Labels:      map[string]string{naming.ManagedByLabel: naming.ManagedBy},
			Annotations: map[string]string{naming.SchematicIDAnnotation: f.SchematicID, naming.VersionAnnotation: f.Version}}
		st.DataVolumes = append(st.DataVolumes, cdiv1.DataVolume{
			ObjectMeta: meta,
			Spec: cdiv1.DataVolumeSpec{
				ContentType: cdiv1.DataVolumeKubeVirt,
				Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: naming.ImageURL(chartdefaults.ImageFactoryURL, f.SchematicID, f.Version)}},
				Storage: &cdiv1.StorageSpec{
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: six}},
					StorageClassName: ptr("replicated"),
				},
			},
			Status: cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded},
		})
		pvc := boundPVC(meta, six)
		pvc.Spec.VolumeName = "pv-" + name
		st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, pvc)
		st.PersistentVolumes = append(st.PersistentVolumes, corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: pvc.Spec.VolumeName},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: six},
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: provisioner, VolumeHandle: pvc.Spec.VolumeName}},
				ClaimRef:               &corev1.ObjectReference{Namespace: naming.GoldenNamespace, Name: name},
				StorageClassName:       "replicated",
				VolumeMode:             ptr(corev1.PersistentVolumeBlock),
			},
			Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
		})
	}
	twenty := resource.MustParse("20Gi")
	for i := range s.PVCs {
		ns := i % max(s.Namespaces, 1)
		f := Flavor(ns % max(s.Goldens, 1))
		meta := metav1.ObjectMeta{Namespace: Namespace(ns), Name: fmt.Sprintf("worker-%06d-disk-system", i),
			Annotations: map[string]string{
				naming.GoldenAnnotation: naming.GoldenPrefix + f.SchematicID + "-" + f.Version,
				naming.PoolAnnotation:   naming.PoolCAPIName(PoolName(ns, i/max(s.Namespaces, 1)%10)),
			}}
		st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, boundPVC(meta, twenty))
		if s.DataVolumes {
			st.DataVolumes = append(st.DataVolumes, clonedDataVolume(meta, meta.Annotations[naming.GoldenAnnotation], twenty))
		}
	}
	for i := range s.Templates {
		ns := i % max(s.Namespaces, 1)
		f := Flavor(ns % max(s.Goldens, 1))
		golden := naming.GoldenPrefix + f.SchematicID + "-" + f.Version
		pool := naming.PoolCAPIName(PoolName(ns, i/max(s.Namespaces, 1)))
		dv := clonedDataVolume(metav1.ObjectMeta{Name: plan.DiskName,
			Annotations: map[string]string{naming.GoldenAnnotation: golden, naming.PoolAnnotation: pool}}, golden, twenty)
		t := capk.KubevirtMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace(ns), Name: fmt.Sprintf("%s-%06x", pool, i),
			CreationTimestamp: metav1.NewTime(t0)}}
		vm := &t.Spec.Template.Spec.VirtualMachineTemplate.Spec
		vm.Template = &capk.InstanceTemplate{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{naming.DeploymentNameLabel: pool}}}
		vm.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{{ObjectMeta: dv.ObjectMeta, Spec: dv.Spec}}
		st.KubevirtMachineTemplates = append(st.KubevirtMachineTemplates, t)
	}
	for i := range s.Pools {
		ns := i % max(s.Namespaces, 1)
		f := Flavor(ns % max(s.Goldens, 1))
		name := PoolName(ns, i/max(s.Namespaces, 1))
		spec := map[string]any{"cluster": fmt.Sprintf("c%04d", ns), "diskSize": "20Gi",
			"osImage": map[string]any{"builtin": map[string]any{"schematicID": f.SchematicID, "version": f.Version}}}
		st.KubernetesNodes = append(st.KubernetesNodes, unstructured.Unstructured{Object: map[string]any{
			"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind,
			"metadata": map[string]any{"namespace": Namespace(ns), "name": name},
			"spec":     spec,
		}})
		st.HelmReleases = append(st.HelmReleases, unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"namespace": Namespace(ns), "name": "kubernetes-nodes-" + name, "labels": map[string]any{
				"apps.cozystack.io/application.kind": plan.PoolKind, "apps.cozystack.io/application.group": "apps.cozystack.io"}},
			"spec": map[string]any{"values": spec, "valuesFrom": []any{map[string]any{"kind": "Secret", "name": "cozystack-values"}}},
		}})
	}
	return st
}

func boundPVC(meta metav1.ObjectMeta, size resource.Quantity) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{
		ObjectMeta: meta,
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr("replicated"),
			VolumeMode:       ptr(corev1.PersistentVolumeBlock),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: size}},
	}
}

func clonedDataVolume(meta metav1.ObjectMeta, golden string, size resource.Quantity) cdiv1.DataVolume {
	return cdiv1.DataVolume{
		ObjectMeta: meta,
		Spec: cdiv1.DataVolumeSpec{
			Source: &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: golden}},
			Storage: &cdiv1.StorageSpec{
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
				StorageClassName: ptr("replicated"),
			},
		},
		Status: cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded},
	}
}

// PoolName is the KubernetesNodes name of pool j in namespace i.
func PoolName(i, j int) string { return fmt.Sprintf("c%04d-md%d", i, j) }

// Pools is n builtin pools spread over the size's namespaces, each cloning
// its namespace's flavor, with an empty class every third pool (so the
// frozen and default resolutions are exercised too).
func Pools(s Size, n int) []plan.Pool {
	pools := make([]plan.Pool, n)
	for k := range pools {
		ns := k % max(s.Namespaces, 1)
		f := Flavor(ns % max(s.Goldens, 1))
		spec := plan.DefaultPoolSpec(fmt.Sprintf("c%04d", ns))
		spec.OSImage = &plan.OSImage{Builtin: &f}
		if k%3 == 0 {
			spec.StorageClass = ""
		}
		pools[k] = plan.Pool{Namespace: Namespace(ns), Name: PoolName(ns, k/max(s.Namespaces, 1)%10), Spec: spec}
	}
	return pools
}

func ptr[T any](v T) *T { return &v }

// BuiltinPool is a KubernetesNodes "<cluster>-md0" in namespace that clones
// the golden of the chart's default flavor, with the chart's other defaults.
func BuiltinPool(namespace, cluster string) plan.Pool {
	spec := plan.DefaultPoolSpec(cluster)
	spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}
	return plan.Pool{Namespace: namespace, Name: cluster + "-md0", Spec: spec}
}

// BuiltinPools is n builtin pools spread evenly over namespaces tenant-0 … .
func BuiltinPools(n, namespaces int) []plan.Pool {
	out := make([]plan.Pool, n)
	for i := range out {
		out[i] = BuiltinPool(fmt.Sprintf("tenant-%d", i%namespaces), fmt.Sprintf("c%d", i))
	}
	return out
}

// DefaultCatalog is the shipped default catalog, enabled.
func DefaultCatalog() *catalog.Catalog {
	v := catalog.Default()
	v.Enabled = true
	return catalog.Compile(v)
}
