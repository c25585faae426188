package plan_test

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	tenantNS  = "tenant-demo"
	provider  = "replicated.csi.example.com"
	localProv = "local.csi.example.com"
)

var (
	golden   = naming.GoldenPrefix + chartdefaults.SchematicID + "-" + chartdefaults.Version
	otherID  = "abc123"
	t0       = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	blockVol = corev1.PersistentVolumeBlock
)

// builtinPool is a pool of cluster "demo" that opts into the catalog.
func builtinPool() plan.Pool {
	s := plan.DefaultPoolSpec("demo")
	s.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}
	return plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: s}
}

func httpPool() plan.Pool {
	return plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")}
}

func enabledCatalog() *catalog.Catalog {
	v := catalog.Default()
	v.Enabled = true
	return catalog.Compile(v)
}

func class(name, prov string, created time.Time, annotations map[string]string) storagev1.StorageClass {
	return storagev1.StorageClass{
		ObjectMeta:           metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created), Annotations: annotations},
		Provisioner:          prov,
		AllowVolumeExpansion: ptr.To(true),
	}
}

func isDefault() map[string]string {
	return map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
}

func profile(class string, mode corev1.PersistentVolumeMode, strategy cdiv1.CDICloneStrategy) cdiv1.StorageProfile {
	return cdiv1.StorageProfile{
		ObjectMeta: metav1.ObjectMeta{Name: class},
		Status: cdiv1.StorageProfileStatus{
			StorageClass:      ptr.To(class),
			CloneStrategy:     ptr.To(strategy),
			ClaimPropertySets: []cdiv1.ClaimPropertySet{{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeMode: ptr.To(mode)}},
		},
	}
}

func goldenDV(phase cdiv1.DataVolumePhase) cdiv1.DataVolume {
	return cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: golden, Labels: map[string]string{naming.ManagedByLabel: naming.ManagedBy},
			Annotations: map[string]string{naming.SchematicIDAnnotation: chartdefaults.SchematicID, naming.VersionAnnotation: chartdefaults.Version}},
		Spec: cdiv1.DataVolumeSpec{
			Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: naming.ImageURL(chartdefaults.ImageFactoryURL, chartdefaults.SchematicID, chartdefaults.Version)}},
			Storage: &cdiv1.StorageSpec{
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("6Gi")}},
				StorageClassName: ptr.To("replicated"),
			},
		},
		Status: cdiv1.DataVolumeStatus{Phase: phase},
	}
}

func pvc(ns, name, class string, size string, mode corev1.PersistentVolumeMode, annotations map[string]string) corev1.PersistentVolumeClaim {
	q := resource.MustParse(size)
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(class),
			VolumeMode:       ptr.To(mode),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: q}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: q}},
	}
}

// goldenPVC is the golden's PVC, bound to the CSI volume goldenPV.
func goldenPVC() corev1.PersistentVolumeClaim {
	p := pvc(naming.GoldenNamespace, golden, "replicated", "6Gi", blockVol, nil)
	p.Spec.VolumeName = "pv-" + golden
	return p
}

// goldenPV is the volume the golden's PVC is bound to, of the class's CSI
// driver: the driver CDI clones with (controller/clone/common.go
// GetDriverFromVolume).
func goldenPV() corev1.PersistentVolume {
	p := goldenPVC()
	return *fixtures.VolumeOf(&p, provider)
}

// workerDisk is a disk of the pool already cloned from the golden.
func workerDisk(name, class string) corev1.PersistentVolumeClaim {
	return pvc(tenantNS, name, class, "20Gi", blockVol, map[string]string{
		naming.GoldenAnnotation: golden,
		naming.PoolAnnotation:   "kubernetes-demo-md0",
	})
}

// fullState is a healthy cluster: the golden populated on the default class
// "replicated" and bound to a volume of its CSI driver, a CSI driver for
// each class, CDI's profiles cloning at the storage layer, and CDI's
// CDIConfig with its default filesystem overhead for each class (without
// it CDI renders no disk).
func fullState() *state.State {
	return &state.State{
		Observed: state.AllKinds,
		StorageClasses: []storagev1.StorageClass{
			class("replicated", provider, t0, isDefault()),
			class("local", localProv, t0, nil),
		},
		CSIDrivers:      []storagev1.CSIDriver{{ObjectMeta: metav1.ObjectMeta{Name: provider}}, {ObjectMeta: metav1.ObjectMeta{Name: localProv}}},
		StorageProfiles: []cdiv1.StorageProfile{profile("replicated", blockVol, cdiv1.CloneStrategyCsiClone), profile("local", blockVol, cdiv1.CloneStrategyCsiClone)},
		CDIs:            []cdiv1.CDI{{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}}},
		CDIConfigs:      []cdiv1.CDIConfig{*fixtures.CDIConfig(fixtures.DefaultOverhead, "replicated", "local")},
		DataVolumes:     []cdiv1.DataVolume{goldenDV(cdiv1.Succeeded)},
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{
			goldenPVC(),
		},
		PersistentVolumes: []corev1.PersistentVolume{goldenPV()},
	}
}
