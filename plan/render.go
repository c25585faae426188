package plan

import (
	"fmt"

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
			"class %q is not among the cluster's StorageClasses, so %s; set storageClass to a class that exists, or create %q", class, p.classMissing(class, size, clonePath), class)
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
// that class when one serves (controller/datavolume/util.go
// renderPvcSpecFromAvailablePv), and, with no class to find a CSIDriver
// for, copies the golden into it host-assisted
// (controller/datavolume/util.go storageClassCSIDriverExists); else it
// never renders one. Either way the refusal stands: the one class per
// flavor is not a volume made by hand.
func (p *planner) classMissing(class string, size resource.Quantity, clonePath bool) string {
	what := "imports the image into it"
	if clonePath {
		what = "copies the golden into it over the pod network (no StorageClass, so no CSI driver for its clone populator)"
	}
	pv, known := cdi.AvailableVolume(p.snap, class, size)
	switch {
	case pv != "":
		return fmt.Sprintf("CDI renders the disk's PVC from the Available PersistentVolume %q of that class (renderPvcSpecFromAvailablePv) and %s", pv, what)
	case known:
		return "CDI never renders the disk's PVC and no worker boots"
	}
	return fmt.Sprintf("CDI never renders the disk's PVC and no worker boots, unless an Available PersistentVolume of class %q serves it (the volumes were not all observed): then CDI renders the disk from that volume and %s", class, what)
}
