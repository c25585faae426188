package storage

import (
	storagev1 "k8s.io/api/storage/v1"
)

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

// DefaultClass picks the cluster default as CDI v1.64.0 resolves it for a
// DataVolume of kubevirt content, which worker disks and goldens are
// (controller/common/util.go GetStorageClassByNameWithVirtFallback,
// getFallbackStorageClass): a class annotated is-default-virt-class
// "true", else one annotated is-default-class "true" (exactly "true").
// Within a tier the newest by creation time wins, then the first by name.
// The beta annotation is never read: with only a beta default there is
// none, and "" is returned.
func DefaultClass(classes []storagev1.StorageClass) string {
	best, bestTier := -1, 0
	for i := range classes {
		c := &classes[i]
		t := tier(c)
		if t == 0 {
			continue
		}
		if best < 0 || t > bestTier || (t == bestTier && newer(c, &classes[best])) {
			best, bestTier = i, t
		}
	}
	if best < 0 {
		return ""
	}
	return classes[best].Name
}

// KubernetesDefaultClass is the default class of the GA annotation alone,
// is-default-class "true", newest then first by name: the default CDI
// falls back to where it reads a class without the virt tier
// (controller/common/util.go GetStorageClassByNameWithK8sFallback), as
// for the StorageProfile of a PVC that names no class.
func KubernetesDefaultClass(classes []storagev1.StorageClass) string {
	best := -1
	for i := range classes {
		if classes[i].Annotations[DefaultAnnotation] != "true" {
			continue
		}
		if best < 0 || newer(&classes[i], &classes[best]) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return classes[best].Name
}

// tier ranks a class's default annotations, 0 for none.
func tier(c *storagev1.StorageClass) int {
	a := c.Annotations
	switch {
	case a[VirtDefaultAnnotation] == "true":
		return 2
	case a[DefaultAnnotation] == "true":
		return 1
	}
	return 0
}

// newer reports whether a should be preferred over b within one tier.
func newer(a, b *storagev1.StorageClass) bool {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return a.Name < b.Name
}
