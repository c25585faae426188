package cloneguard

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// render is what CDI renders for the disk on class, refused when it never
// renders.
func (j *judge) render(class string) cdi.Rendering {
	r := Render(j.snap, &j.c, class, j.req.Size, j.req.SizeOK, j.noun(), &j.req.Paths, &j.req.Words)
	j.v.Unverified |= r.Unobserved
	return r
}

// Render is what CDI renders for a disk on class (internal/cdi Render): a
// class that does not exist, or a disk CDI cannot render a PVC for, never
// clones and never boots. A clone's (source is "golden" or "source", what
// it clones) is refused for each; an import's (source "") is warned of,
// since an import gains no refusal its chart did not have, and it never
// imports. A size that did not parse (sizeOK false) is not judged here:
// its caller's InvalidQuantity says it. The rendering's Unobserved are the
// kinds it could not read.
func Render(snap *state.Snapshot, c *findings.Collector, class string, size resource.Quantity, sizeOK bool, source string, p *Paths, w *Words) cdi.Rendering {
	if !sizeOK {
		size = *resource.NewQuantity(1<<30, resource.BinarySI) // any renderable size: only the class is judged
	}
	r := cdi.Render(snap, class, size)
	clone := source != ""
	say := func(reason guard.Reason, fld *field.Path, bad any, format string, args ...any) {
		if clone {
			c.Refuse(reason, fld, bad, format, args...)
		} else {
			c.Warn(reason, fld, format, args...)
		}
	}
	switch {
	case r.UnrenderableSize && sizeOK:
		say(guard.DiskUnrenderable, p.Size, w.SizeText,
			"%s %s: %s, so %s never exists; use a size such as %s", w.SizeField, w.SizeText, r.Unrenderable, w.Disk, w.SizeExample)
	case r.ClassMissing:
		say(guard.StorageClassNotFound, p.Class, class,
			"class %q is not among the cluster's StorageClasses, so %s; set %s to a class that exists, or create %q", class, classMissing(source), w.ClassField, class)
	case r.Unrenderable != "":
		say(guard.DiskUnrenderable, p.Class, class,
			"CDI cannot render the disk's PVC on class %q, so %s never exists: %s; %s", class, w.Disk, r.Unrenderable, r.Fix)
	}
	if !sizeOK {
		r.RequestKnown, r.RawKnown = false, false
	}
	return r
}

// classMissing says what CDI does with a disk whose class no StorageClass
// names: it renders the disk's PVC from an Available PersistentVolume of
// that class (its capacity at least the disk's size, Filesystem, with
// access modes) when one exists (CDI v1.64.0
// pkg/controller/datavolume/util.go: renderPvcSpecFromAvailablePv,
// CheckVolumeSatisfyClaim), and, with no class to find a CSIDriver for,
// copies the source into it host-assisted (storageClassCSIDriverExists);
// else it never renders one. The guards read no PersistentVolume but the
// source's (listing every volume of the cluster is no bounded read), so
// the message says both; the refusal stands either way: a volume made by
// hand is not the source's class.
func classMissing(source string) string {
	if source != "" {
		return "CDI never renders the disk's PVC, unless an Available PersistentVolume of that class holds the disk: then CDI renders the PVC from that volume (renderPvcSpecFromAvailablePv) and copies the " + source + " into it over the pod network (with no StorageClass there is no CSIDriver for its clone populator); either way nothing clones at the storage layer"
	}
	return "CDI never renders the disk's PVC and no worker boots, unless an Available PersistentVolume of that class holds the disk: then CDI renders the PVC from that volume (renderPvcSpecFromAvailablePv) and imports the image into it"
}
