package state

import "strings"

// Kind is one kind of object the planner reads. Kinds combine as a set.
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

	// AllKinds is every kind the planner reads.
	AllKinds = StorageClass | PersistentVolumeClaim | DataVolume | StorageProfile | CDI | CSIDriver |
		VolumeSnapshotClass | CDIConfig | PersistentVolume
)

var kindNames = [...]string{"StorageClass", "PersistentVolumeClaim", "DataVolume", "StorageProfile", "CDI", "CSIDriver",
	"VolumeSnapshotClass", "CDIConfig", "PersistentVolume"}

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

// KindByName finds a kind by its Kubernetes kind name.
func KindByName(name string) (Kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return Kind(1 << i), true
		}
	}
	return 0, false
}
