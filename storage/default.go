package storage

// The annotations CDI reads, in order, to find the default class of a
// DataVolume; and the beta annotation, which CDI never reads.
const (
	VirtDefaultAnnotation = "storageclass.kubevirt.io/is-default-virt-class"
	DefaultAnnotation     = "storageclass.kubernetes.io/is-default-class"
	// BetaDefaultAnnotation marks a default for the API server's older
	// admission only: a cluster whose only default carries it has no
	// default for CDI, and a disk left to the default never gets a PVC.
	BetaDefaultAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)
