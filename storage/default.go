package storage

import (
	storagev1 "k8s.io/api/storage/v1"
)

// The annotations CDI reads, in order, to find the default class of a
// DataVolume.
const (
	VirtDefaultAnnotation = "storageclass.kubevirt.io/is-default-virt-class"
	DefaultAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaDefaultAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// DefaultResult is the cluster default class. Known is false when the
// StorageClasses were not observed; Name is "" when they were and none is a
// default.
type DefaultResult struct {
	Name  string
	Known bool
}

// DefaultClass picks the cluster default as CDI resolves it for a
// DataVolume: a class annotated is-default-virt-class "true", else
// is-default-class "true", else the beta is-default-class "true". Within a
// tier the newest by creation time wins, then the first by name; a GA default
// beats a newer beta-only one.
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

// tier ranks a class's default annotations. CDI itself reads only the virt
// tier (for kubevirt content, which goldens and worker disks are) and the GA
// tier, newest first then by name; the beta tier is the SPEC's, for older
// clusters whose API server's DefaultStorageClass admission still honours it.
func tier(c *storagev1.StorageClass) int {
	a := c.Annotations
	switch {
	case a[VirtDefaultAnnotation] == "true":
		return 3
	case a[DefaultAnnotation] == "true":
		return 2
	case a[BetaDefaultAnnotation] == "true":
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
