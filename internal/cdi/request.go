package cdi

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/size"
)

// MinimumSupportedPVCSizeAnnotation, on a StorageProfile, is the least
// request CDI writes on a PVC of its class.
const MinimumSupportedPVCSizeAnnotation = "cdi.kubevirt.io/minimumSupportedPvcSize"

// MinimumDiskSize is the least size CDI admits for a DataVolume: its
// validating webhook rejects a smaller one (apiserver/webhooks/datavolume-validate.go
// validateStorageSize).
const MinimumDiskSize = 1 << 20

// alignment is what CDI rounds a Filesystem request up to before it adds the
// overhead (pkg/util/util.go DefaultAlignBlockSize).
const alignment = 1 << 20

// RenderedRequest is the storage request CDI v1.64.0 writes on the PVC of a
// DataVolume that uses the storage API (controller/datavolume/util.go
// renderPvcSpecVolumeSize, with controller/common/util.go
// InflateSizeWithOverhead and GetEffectiveVolumeSize): in volume mode
// Filesystem the size is rounded up to 1MiB and inflated by the filesystem
// overhead, ceil(roundUp(size, 1MiB) × (1 + overhead)), in float64 as CDI
// computes it; in Block it is the size as given; then it is raised to the
// StorageProfile's minimum when that is larger (minimum nil: none). The
// overhead is CDI's string ("0.06"); one that does not parse counts as 0, as
// CDI counts it. A mode other than Block is Filesystem.
//
// For example, with overhead "0.06":
//
//	6400Mi Filesystem → 7113539584 (6784Mi)
//	6Gi Filesystem    → 6828998001
//	20G Filesystem    → 21200570942 (20G is first rounded up to 19074Mi)
//	20Gi Block        → 21474836480 (20Gi)
//	20Gi Block, minimum 30Gi → 30Gi
func RenderedRequest(size resource.Quantity, mode corev1.PersistentVolumeMode, overhead string, minimum *resource.Quantity) resource.Quantity {
	bytes := size.Value()
	req := bytes
	if mode != corev1.PersistentVolumeBlock {
		o, err := strconv.ParseFloat(overhead, 64)
		if err != nil {
			o = 0
		}
		aligned := int64(math.Ceil(float64(bytes)/float64(alignment))) * alignment
		req = int64(math.Ceil(float64(aligned) * (1 + o)))
	}
	out := *resource.NewQuantity(req, resource.BinarySI)
	if minimum != nil && out.Cmp(*minimum) < 0 {
		return minimum.DeepCopy()
	}
	return out
}

// FilesystemOverhead is the overhead CDI inflates a Filesystem PVC of class
// by (controller/common/util.go GetFilesystemOverheadForStorageClass): the
// CDIConfig's status.filesystemOverhead.storageClass[class] when the key is
// there, else its global; "0" when the status has none. CDI's config
// controller writes a global of "0.06" unless the spec sets another.
func FilesystemOverhead(config *cdiv1.CDIConfig, class string) string {
	if config == nil || config.Status.FilesystemOverhead == nil {
		return "0"
	}
	fo := config.Status.FilesystemOverhead
	if o, ok := fo.StorageClass[class]; ok {
		return string(o)
	}
	return string(fo.Global)
}

// MinimumRequest is a StorageProfile's minimumSupportedPvcSize, nil when it
// has none or the annotation does not parse (CDI then raises nothing).
func MinimumRequest(profile *cdiv1.StorageProfile) *resource.Quantity {
	if profile == nil {
		return nil
	}
	v, ok := profile.Annotations[MinimumSupportedPVCSizeAnnotation]
	if !ok {
		return nil
	}
	q, err := size.Quantity(v)
	if err != nil {
		return nil
	}
	return &q
}
