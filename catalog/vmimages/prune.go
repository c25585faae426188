package vmimages

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// noPools is the catalog.PoolReader of the image catalog: a worker pool
// clones a talos-worker golden, never an image's, so no pool is its
// consumer (the pool kinds must still be observed for a prune to call a
// golden safe to delete: an unread kind proves nothing).
func noPools(state.Kind, *unstructured.Unstructured) (pool, golden string, err error) {
	return "", "", nil
}

// Consumers lists every object, in any namespace, that clones an image's
// golden (catalog.NewConsumerIndex): a vm-disk is the DataVolume
// vm-disk-<name> in its tenant's namespace whose source.pvc is the golden,
// and VirtualMachines, DataSources and other disks that clone it are
// listed beside it. Each consumer kind that was not observed in every
// namespace is a StateUnverified warning: the list may then be
// incomplete.
func Consumers(image string, snap *state.Snapshot) catalog.ConsumersResult {
	return catalog.Consumers(GoldenPrefix+image, snap, noPools)
}

// Prune reports, for the goldens in cozy-public that no entry of the
// catalog names, which ones nothing clones (safe to delete by hand) and
// which are still cloned, with their consumers. It fails closed: when a
// consumer kind (state.ConsumerKinds) or the goldens themselves were not
// observed in every namespace, or the catalog is unknown, nothing is safe
// to delete, and a StateUnverified warning says why. It is a report: the
// library never deletes.
func Prune(cat *Catalog, snap *state.Snapshot) catalog.PruneReport {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	rep := catalog.PruneReport{SafeToDelete: []string{}, Kept: []catalog.Kept{}}
	fld := field.NewPath("safeToDelete")
	if !cat.Known() {
		w := guard.NewWarning(guard.StateUnverified, fld,
			"the values do not list images, so which goldens an entry manages is unknown and nothing is reported safe to delete; pass the values with their images")
		w.Subject = subject
		rep.Warnings = append(rep.Warnings, w)
		return rep
	}
	idx := catalog.NewConsumerIndex(snap, noPools)
	names, missing := unmanaged(cat, snap)
	var unsure []string
	for _, n := range names {
		switch cs := idx.Of(n); {
		case len(cs) > 0:
			rep.Kept = append(rep.Kept, catalog.Kept{Name: n, Consumers: append([]catalog.Consumer{}, cs...), BlastRadius: idx.Radius(n)})
		case idx.Complete() && missing == 0:
			rep.SafeToDelete = append(rep.SafeToDelete, n)
		default:
			unsure = append(unsure, n)
		}
	}
	for _, k := range (missing | idx.Unobserved()).Each() {
		detail := k.String() + "s were not observed in every namespace, so nothing is reported safe to delete"
		if len(unsure) > 0 {
			detail += " (unmanaged goldens with no consumer seen: " + strings.Join(unsure, ", ") + ")"
		}
		w := guard.NewWarning(guard.StateUnverified, fld, "%s; read them before deleting any golden", detail)
		w.Kind, w.Subject = k.String(), subject
		rep.Warnings = append(rep.Warnings, w)
	}
	return rep
}
