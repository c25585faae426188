package plan

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
)

// renderDisk is what CDI renders for the disk on its class (internal/cdi
// Render): a class that does not exist, or a disk CDI cannot render a PVC
// for, never clones and never boots a worker. On the clone path each is a
// refusal, and what it could not read is StateUnverified; on the HTTP path,
// which gains no refusal the pre-feature chart did not have, each is a
// warning, and only from what was observed. A size that did not parse
// (sizeOK false) is not judged here: InvalidQuantity says it.
func (p *planner) renderDisk(class string, size resource.Quantity, sizeOK, clonePath bool) cdi.Rendering {
	if !sizeOK {
		size = *resource.NewQuantity(1<<30, resource.BinarySI) // any renderable size: only the class is judged
	}
	r := cdi.Render(p.snap, class, size)
	say := func(reason guard.Reason, fld *field.Path, bad any, format string, args ...any) {
		if clonePath {
			p.c.Refuse(reason, fld, bad, format, args...)
		} else {
			p.c.Warn(reason, fld, format, args...)
		}
	}
	switch {
	case r.UnrenderableSize && sizeOK:
		say(guard.DiskUnrenderable, pathDiskSize, p.diskSize(),
			"diskSize %s: %s, so the worker disk never exists; use a size such as %s", p.diskSize(), r.Unrenderable, DefaultDiskSize)
	case r.ClassMissing:
		say(guard.StorageClassNotFound, pathStorageClass, class,
			"class %q is not among the cluster's StorageClasses, so %s; set storageClass to a class that exists, or create %q", class, classMissing(clonePath), class)
	case r.Unrenderable != "":
		say(guard.DiskUnrenderable, pathStorageClass, class,
			"CDI cannot render the disk's PVC on class %q, so the worker disk never exists: %s; %s", class, r.Unrenderable, r.Fix)
	}
	if clonePath {
		p.unverified |= r.Unobserved
	}
	if !sizeOK {
		r.RequestKnown, r.RawKnown = false, false
	}
	return r
}

// classMissing says what CDI does with a disk whose class no StorageClass
// names: it renders the disk's PVC from an Available PersistentVolume of
// that class (its capacity at least the disk's size, Filesystem, with
// access modes) when one exists (controller/datavolume/util.go
// renderPvcSpecFromAvailablePv, CheckVolumeSatisfyClaim), and, with no
// class to find a CSIDriver for, copies the golden into it host-assisted
// (storageClassCSIDriverExists); else it never renders one. The planner
// reads no PersistentVolume but the golden's (listing every volume of the
// cluster is no bounded read), so the message says both; the refusal
// stands either way: a volume made by hand is not the flavor's class.
func classMissing(clonePath bool) string {
	if clonePath {
		return "CDI never renders the disk's PVC, unless an Available PersistentVolume of that class holds the disk: then CDI renders the PVC from that volume (renderPvcSpecFromAvailablePv) and copies the golden into it over the pod network (with no StorageClass there is no CSIDriver for its clone populator); either way nothing clones at the storage layer"
	}
	return "CDI never renders the disk's PVC and no worker boots, unless an Available PersistentVolume of that class holds the disk: then CDI renders the PVC from that volume (renderPvcSpecFromAvailablePv) and imports the image into it"
}
