package state

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// State is what was observed of a cluster. Each kind is either observed
// (possibly empty) or unknown; the zero State knows nothing, and unknown is
// never treated as absent nor as present.
type State struct {
	// Observed is the set of kinds that were read.
	Observed Kind
	// Namespaces limits what the observed namespaced kinds (Namespaced:
	// PersistentVolumeClaim, DataVolume, KubevirtMachineTemplate,
	// VirtualMachine, DataSource, KubernetesNodes, HelmRelease) cover: nil
	// means every namespace.
	Namespaces []string
	// Objects lists namespaced objects read one by one (a golden fetched by
	// name), found or not, outside Namespaces. A listed object that is not
	// in the slices below is known to be absent.
	Objects []Ref

	StorageClasses         []storagev1.StorageClass
	PersistentVolumeClaims []corev1.PersistentVolumeClaim
	DataVolumes            []cdiv1.DataVolume
	StorageProfiles        []cdiv1.StorageProfile
	CDIs                   []cdiv1.CDI
	CSIDrivers             []storagev1.CSIDriver
	VolumeSnapshotClasses  []snapshotv1.VolumeSnapshotClass
	CDIConfigs             []cdiv1.CDIConfig
	PersistentVolumes      []corev1.PersistentVolume
	// KubevirtMachineTemplates, VirtualMachines and DataSources are read
	// for what clones a golden (package catalog's consumers) and for a
	// pool's live disk-system (its newest template); the planner's guards
	// never read them.
	KubevirtMachineTemplates []capk.KubevirtMachineTemplate
	VirtualMachines          []kubevirtv1.VirtualMachine
	DataSources              []cdiv1.DataSource
	// KubernetesNodes and HelmReleases are the pools as declared, read for
	// the golden each will clone on its next render (package catalog's
	// consumers); as unstructured objects, since their schema is the
	// kubernetes-nodes chart's values, which package plan reads.
	KubernetesNodes []unstructured.Unstructured
	HelmReleases    []unstructured.Unstructured
}

// Ref names one object of one kind.
type Ref struct {
	Kind      Kind
	Namespace string
	Name      string
}
