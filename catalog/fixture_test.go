package catalog

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	idA      = "aaa111"
	idB      = "bbb222"
	v1136    = "v1.13.6"
	factory  = "https://factory.talos.dev"
	tenantNS = "tenant-a"
)

var (
	t0      = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	goldenA = naming.GoldenPrefix + idA + "-" + v1136
	goldenB = naming.GoldenPrefix + idB + "-" + v1136
	urlA    = naming.ImageURL(factory, idA, v1136)
)

// found is a refusal or warning as tests compare it: reason and field.
type found struct {
	Reason guard.Reason
	Field  string
}

func refusalsOf(err error) []found {
	var out []found
	for _, r := range guard.Refusals(err) {
		out = append(out, found{r.Reason, r.Field})
	}
	return out
}

func warningsOf(ws []guard.Warning) []found {
	var out []found
	for _, w := range ws {
		out = append(out, found{w.Reason, w.Field})
	}
	return out
}

// values is an enabled catalog on class "replicated", 6Gi, of the images.
func values(images ...Image) Values {
	return Values{Enabled: true, ImageFactoryURL: factory, StorageClass: "replicated", Storage: "6Gi", Images: images}
}

func scClass(name string, isDefault bool) storagev1.StorageClass {
	c := storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0)}, Provisioner: "csi.example.com"}
	if isDefault {
		c.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	}
	return c
}

// goldenMeta is the metadata a golden of the flavor carries.
func goldenMeta(id, version string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: naming.GoldenNamespace,
		Name:      naming.GoldenPrefix + id + "-" + version,
		Labels:    map[string]string{naming.ManagedByLabel: naming.ManagedBy},
		Annotations: map[string]string{
			naming.SchematicIDAnnotation: id,
			naming.VersionAnnotation:     version,
		},
	}
}

// liveDV is a populated golden DataVolume; class "" leaves it classless.
func liveDV(id, url, size, class string) cdiv1.DataVolume {
	dv := cdiv1.DataVolume{
		ObjectMeta: goldenMeta(id, v1136),
		Spec: cdiv1.DataVolumeSpec{
			ContentType: cdiv1.DataVolumeKubeVirt,
			Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}},
			Storage: &cdiv1.StorageSpec{
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
			},
		},
		Status: cdiv1.DataVolumeStatus{Phase: cdiv1.Succeeded},
	}
	if class != "" {
		dv.Spec.Storage.StorageClassName = ptr.To(class)
	}
	return dv
}

// livePVC is a golden's PVC bound on class; endpoint "" leaves out CDI's
// import-endpoint annotation.
func livePVC(id, class, size, endpoint string) corev1.PersistentVolumeClaim {
	q := resource.MustParse(size)
	p := corev1.PersistentVolumeClaim{
		ObjectMeta: goldenMeta(id, v1136),
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(class),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: q}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: q}},
	}
	if endpoint != "" {
		p.Annotations[naming.ImportEndpointAnnotation] = endpoint
	}
	return p
}

// cluster is a fully observed cluster whose default class is "replicated".
func cluster(dvs []cdiv1.DataVolume, pvcs []corev1.PersistentVolumeClaim) *state.State {
	return &state.State{
		Observed:               state.AllKinds,
		StorageClasses:         []storagev1.StorageClass{scClass("replicated", true), scClass("local", false)},
		DataVolumes:            dvs,
		PersistentVolumeClaims: pvcs,
	}
}

// workerDV is a worker disk in ns that clones golden by annotation.
func workerDV(ns, name, golden, pool string) cdiv1.DataVolume {
	return cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{
			naming.GoldenAnnotation: golden, naming.PoolAnnotation: pool,
		}},
	}
}

// sourceDV is a DataVolume in ns that clones golden by source.pvc only.
func sourceDV(ns, name, golden string) cdiv1.DataVolume {
	return cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{
			PVC: &cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: golden},
		}},
	}
}
