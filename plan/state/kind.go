package state

import "strings"

// Kind is one kind of object the library reads: the planner's, and the
// consumers of goldens. Kinds combine as a set.
type Kind uint16

const (
	StorageClass Kind = 1 << iota
	PersistentVolumeClaim
	DataVolume
	StorageProfile
	CDI
	CSIDriver
	// VolumeSnapshotClass (snapshot.storage.k8s.io/v1) decides whether
	// CDI's snapshot clone strategy has a class to snapshot with.
	VolumeSnapshotClass
	// CDIConfig is CDI's config (the one named "config"): its status says
	// the filesystem overhead a disk's request is inflated by.
	CDIConfig
	// PersistentVolume is a golden's bound volume, read by name: its CSI
	// driver is the one CDI clones with.
	PersistentVolume
	// KubevirtMachineTemplate (infrastructure.cluster.x-k8s.io/v1alpha1)
	// is a pool's machine template: its dataVolumeTemplates clone a golden
	// even while the pool has no worker, and hold the disk-system its
	// workers boot from now.
	KubevirtMachineTemplate
	// VirtualMachine (kubevirt.io/v1) clones a golden through its
	// dataVolumeTemplates.
	VirtualMachine
	// DataSource (cdi.kubevirt.io/v1beta1) names a PVC that a DataVolume's
	// sourceRef clones.
	DataSource
	// KubernetesNodes (apps.cozystack.io/v1alpha1) is a pool: its spec
	// says which golden its next render clones, before any disk exists.
	KubernetesNodes
	// HelmRelease (helm.toolkit.fluxcd.io/v2) of the kubernetes-nodes
	// chart is a pool as Flux installs it (a ComputePlane's pools have only
	// theirs): its values say which golden it clones.
	HelmRelease

	// AllKinds is every kind the library reads.
	AllKinds = StorageClass | PersistentVolumeClaim | DataVolume | StorageProfile | CDI | CSIDriver |
		VolumeSnapshotClass | CDIConfig | PersistentVolume | ConsumerKinds

	// PlanKinds are the kinds the planner's guards read: a plan's needs
	// (plan.Needs) name no other, so that what decides a pool's disk never
	// waits on, nor warns for, a kind that only counts consumers.
	PlanKinds = AllKinds &^ (KubevirtMachineTemplate | VirtualMachine | DataSource | KubernetesNodes | HelmRelease)

	// ConsumerKinds are the kinds that may clone a golden, or will on a
	// pool's next render: what "does anything still clone this golden?"
	// reads, in every namespace.
	ConsumerKinds = PersistentVolumeClaim | DataVolume | KubevirtMachineTemplate | VirtualMachine | DataSource |
		KubernetesNodes | HelmRelease

	// Namespaced are the kinds that live in a namespace: State.Namespaces
	// scopes them.
	Namespaced = PersistentVolumeClaim | DataVolume | KubevirtMachineTemplate | VirtualMachine | DataSource |
		KubernetesNodes | HelmRelease
)

var kindNames = [...]string{"StorageClass", "PersistentVolumeClaim", "DataVolume", "StorageProfile", "CDI", "CSIDriver",
	"VolumeSnapshotClass", "CDIConfig", "PersistentVolume", "KubevirtMachineTemplate", "VirtualMachine", "DataSource",
	"KubernetesNodes", "HelmRelease"}

// Has reports whether every kind of o is in k.
func (k Kind) Has(o Kind) bool { return k&o == o }

// Each lists the single kinds in k, in a fixed order.
func (k Kind) Each() []Kind {
	var out []Kind
	for i := range kindNames {
		if b := Kind(1 << i); k&b != 0 {
			out = append(out, b)
		}
	}
	return out
}

// String names the kinds, "StorageClass|CDI".
func (k Kind) String() string {
	var names []string
	for i, n := range kindNames {
		if k&Kind(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// Plural names the kinds in the plural, "DataVolumes|KubernetesNodes":
// for a sentence that says what was not observed.
func (k Kind) Plural() string {
	var names []string
	for i, n := range kindNames {
		if k&Kind(1<<i) != 0 {
			if !strings.HasSuffix(n, "s") {
				n += "s"
			}
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// KindByName finds a kind by its Kubernetes kind name.
func KindByName(name string) (Kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return Kind(1 << i), true
		}
	}
	return 0, false
}
