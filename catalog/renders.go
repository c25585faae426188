package catalog

import (
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// checkRenders refuses an entry whose golden, not created yet, CDI could never
// render a PVC for, as the planner refuses such a disk: an empty class with no
// default CDI reads, a class that does not exist, a class CDI cannot render
// (internal/cdi Render). Each is at images[i].storageClass; what was not
// observed is StateUnverified.
func (r *renderer) checkRenders(e *Entry) {
	fld := e.path().Child("storageClass")
	class := e.StorageClass
	if class == "" {
		switch d := r.def; {
		case !d.Known:
			r.unverified |= state.StorageClass
			return
		case d.Name == "":
			r.col.Refuse(guard.DefaultStorageClassUnresolvable, fld, "",
				"%s: the entry names no class and the cluster has no default StorageClass that CDI reads, so CDI never renders golden %s's PVC; set storageClass on the entry or the catalog, or mark a class with %s: \"true\"",
				e.describe(), e.Golden, storage.DefaultAnnotation)
			return
		default:
			class = d.Name
		}
	}
	if e.Size.IsZero() {
		return // InvalidQuantity says the size is wrong
	}
	g := cdi.Render(r.snap, class, e.Size)
	r.unverified |= g.Unobserved
	switch {
	case g.UnrenderableSize:
		r.col.Refuse(guard.DiskUnrenderable, e.path().Child("storage"), e.Storage,
			"%s: %s, so golden %s never exists; use a size such as %s", e.describe(), g.Unrenderable, e.Golden, chartdefaults.Storage)
	case g.ClassMissing:
		r.col.Refuse(guard.StorageClassNotFound, fld, class,
			"%s: class %q is not among the cluster's StorageClasses, so CDI never renders golden %s's PVC; set the entry's storageClass to a class that exists, or create %q",
			e.describe(), class, e.Golden, class)
	case g.Unrenderable != "":
		r.col.Refuse(guard.DiskUnrenderable, fld, class,
			"%s: CDI cannot render golden %s's PVC on class %q: %s; %s", e.describe(), e.Golden, class, g.Unrenderable, g.Fix)
	}
}
