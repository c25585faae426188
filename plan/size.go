package plan

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// checkSize refuses a disk CDI's clone rejects for its size, for good: the
// golden PVC's requested storage above the disk's. Its capacity plays no
// part (SPEC section 10). CDI checks twice:
//   - for a Block golden, its DataVolume controller compares with the
//     disk's size raised to the StorageProfile's minimum, not inflated, and
//     creates no PVC when it fails (controller/datavolume/pvc-clone-controller.go
//     validateClone, controller/common/util.go ValidateRequestedCloneSize);
//   - the clone planner compares with the disk's rendered request
//     (controller/clone/planner.go validateSourcePVC), unless the disk
//     carries cdi.kubevirt.io/permissiveClone, which CDI sets itself for a
//     Block disk cloned from a Filesystem golden once a size-detection pod
//     has measured the image; that case is left to HostAssistedClone, which
//     the volume modes refuse anyway.
func (p *planner) checkSize(cl *clone) {
	d, g := &cl.disk, &cl.claim
	if !cl.sizeOK || !g.known || g.request.IsZero() {
		return
	}
	switch {
	case g.mode == corev1.PersistentVolumeBlock && d.RawKnown && g.request.Cmp(d.Raw) > 0:
		p.c.Refuse(guard.DiskSmallerThanGolden, pathDiskSize, p.diskSize(),
			"golden %s is a Block volume of %s, more than the disk's %s, so CDI never creates the disk's PVC (\"target resources requests storage size is smaller than the source\"); set diskSize to %s or more",
			cl.golden.Name, g.request.String(), d.Raw.String(), g.request.String())
	case g.mode != corev1.PersistentVolumeBlock && d.RequestKnown && d.Mode != corev1.PersistentVolumeBlock && g.request.Cmp(d.Request) > 0:
		p.c.Refuse(guard.DiskSmallerThanGolden, pathDiskSize, p.diskSize(),
			"golden %s's PVC requests %s, more than the %s CDI renders for diskSize %s, so the clone fails for good (\"target resources requests storage size is smaller than the source\"); set diskSize to %s or more",
			cl.golden.Name, g.request.String(), d.Request.String(), p.diskSize(), g.request.String())
	}
}
