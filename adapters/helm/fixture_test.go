package helm_test

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	tenantNS = "tenant-demo"
	provider = "replicated.csi.example.com"
)

var golden = naming.GoldenPrefix + chartdefaults.SchematicID + "-" + chartdefaults.Version

func enabledCatalog() *catalog.Catalog {
	v := catalog.Default()
	v.Enabled = true
	return catalog.Compile(v)
}

// cluster is a healthy cluster: "replicated" (the default) and "local" on
// one CSI driver that clones, CDI and its config, the default golden
// imported on "replicated", its PVC bound to a volume of the driver.
func cluster() *state.Snapshot {
	class := func(name string, def bool) storagev1.StorageClass {
		c := storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provider, AllowVolumeExpansion: ptr.To(true)}
		if def {
			c.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		}
		return c
	}
	profile := func(name string) cdiv1.StorageProfile {
		return cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: cdiv1.StorageProfileStatus{
			CloneStrategy: ptr.To(cdiv1.CloneStrategyCsiClone),
			ClaimPropertySets: []cdiv1.ClaimPropertySet{{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				VolumeMode:  ptr.To(corev1.PersistentVolumeFilesystem),
			}},
		}}
	}
	meta := metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: golden,
		Labels:      map[string]string{naming.ManagedByLabel: naming.ManagedBy},
		Annotations: map[string]string{naming.SchematicIDAnnotation: chartdefaults.SchematicID, naming.VersionAnnotation: chartdefaults.Version}}
	size := resource.MustParse("6Gi")
	return state.NewSnapshot(&state.State{
		Observed:        state.AllKinds,
		StorageClasses:  []storagev1.StorageClass{class("replicated", true), class("local", false)},
		CSIDrivers:      []storagev1.CSIDriver{{ObjectMeta: metav1.ObjectMeta{Name: provider}}},
		StorageProfiles: []cdiv1.StorageProfile{profile("replicated"), profile("local")},
		CDIs:            []cdiv1.CDI{{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}}},
		CDIConfigs: []cdiv1.CDIConfig{{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Status: cdiv1.CDIConfigStatus{
			FilesystemOverhead: &cdiv1.FilesystemOverhead{Global: "0.06"},
		}}},
		PersistentVolumes: []corev1.PersistentVolume{{
			ObjectMeta: metav1.ObjectMeta{Name: "pv-" + golden},
			Spec: corev1.PersistentVolumeSpec{
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: provider, VolumeHandle: "pv-" + golden}},
				ClaimRef:               &corev1.ObjectReference{Namespace: naming.GoldenNamespace, Name: golden},
			},
		}},
		DataVolumes: []cdiv1.DataVolume{{
			ObjectMeta: meta,
			Spec: cdiv1.DataVolumeSpec{
				ContentType: cdiv1.DataVolumeKubeVirt,
				Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: naming.ImageURL(chartdefaults.ImageFactoryURL, chartdefaults.SchematicID, chartdefaults.Version)}},
				Storage: &cdiv1.StorageSpec{
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
					StorageClassName: ptr.To("replicated"),
				},
			},
			Status: cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded},
		}},
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{{
			ObjectMeta: meta,
			Spec: corev1.PersistentVolumeClaimSpec{
				StorageClassName: ptr.To("replicated"),
				VolumeName:       "pv-" + golden,
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
			},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: size}},
		}},
	})
}
