package cloneguard

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// checkSize refuses a disk CDI's clone rejects for its size, for good: the
// golden PVC's requested storage above the disk's. Its capacity plays no
// part. CDI checks twice:
//   - for a Block golden, its DataVolume controller compares with the
//     disk's size raised to the StorageProfile's minimum, not inflated, and
//     creates no PVC when it fails (CDI v1.64.0 pkg/controller/datavolume/pvc-clone-controller.go:
//     validateClone, CDI v1.64.0 pkg/controller/common/util.go: ValidateRequestedCloneSize);
//   - the clone planner compares with the disk's rendered request
//     (CDI v1.64.0 pkg/controller/clone/planner.go: validateSourcePVC; the host-assisted
//     path's CDI v1.64.0 pkg/controller/clone-controller.go: ValidateCanCloneSourceAndTargetSpec
//     likewise), unless the disk carries cdi.kubevirt.io/permissiveClone.
//
// CDI sets permissiveClone itself for a Block disk cloned from a Filesystem
// golden, and only when the disk's request holds the image inside the
// golden, which a size-detection pod measures
// (CDI v1.64.0 pkg/controller/datavolume/pvc-clone-controller.go: detectCloneSize). The
// image's size is unknown here and bounded by the golden's request: a disk
// whose rendered request is below that request may not hold it, and then
// the clone fails for good. That is refused beside the volume-mode cause
// that already refuses such a clone.
func (j *judge) checkSize() {
	d, g := &j.v.Disk, &j.claim
	w := &j.req.Words
	if !j.req.SizeOK || !g.known || g.request.IsZero() {
		return
	}
	goldenBlock := g.mode == corev1.PersistentVolumeBlock
	switch {
	case goldenBlock && d.RawKnown && g.request.Cmp(d.Raw) > 0:
		j.c.Refuse(guard.DiskSmallerThanGolden, j.req.Paths.Size, w.SizeText,
			"%s is a Block volume of %s, more than the disk's %s, so CDI never creates the disk's PVC (\"target resources requests storage size is smaller than the source\"); set %s to %s or more%s",
			j.source(), g.request.String(), d.Raw.String(), w.SizeField, g.request.String(), j.predictedNote(true))
	case !goldenBlock && d.RequestKnown && d.Mode == corev1.PersistentVolumeBlock && g.request.Cmp(d.Request) > 0:
		j.c.Refuse(guard.DiskSmallerThanGolden, j.req.Paths.Size, w.SizeText,
			"%s is a Filesystem volume requesting %s and the disk a Block volume of %s: CDI measures the image inside the %s and clones only a disk that holds it (detectCloneSize); an image as large as the %s's request does not fit, and the clone fails for good (validateSourcePVC: \"target resources requests storage size is smaller than the source\"); set %s to %s or more%s",
			j.source(), g.request.String(), d.Request.String(), j.noun(), j.noun(), w.SizeField, g.request.String(), j.predictedNote(true))
	case !goldenBlock && d.RequestKnown && d.Mode != corev1.PersistentVolumeBlock && g.request.Cmp(d.Request) > 0:
		j.c.Refuse(guard.DiskSmallerThanGolden, j.req.Paths.Size, w.SizeText,
			"%s's PVC requests %s, more than the %s CDI renders for %s %s, so the clone fails for good (\"target resources requests storage size is smaller than the source\"); set %s to %s or more%s",
			j.source(), g.request.String(), d.Request.String(), w.SizeField, w.SizeText, w.SizeField, g.request.String(), j.predictedNote(true))
	}
}
