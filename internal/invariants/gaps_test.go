package invariants_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// This file names where the planner departs, by choice, from reading its
// inputs' rules to the letter, so that the invariant properties excuse exactly
// that and nothing more. Gaps 2 to 4 (a profile's copy with the CDI
// resource unknown; PVCs unknown without a word; moving the default under
// a pool whose golden names no class) are closed and pinned by the
// properties.

// knownGap says which reported gap a refusal that appeared when kinds
// became unknown falls into, "" for none.
func knownGap(f finding, p plan.Pool, cat *catalog.Catalog, less *state.State) string {
	snap := state.NewSnapshot(less)
	name := goldenOf(p)
	d := stateindex.Of(snap).Disk(naming.GoldenNamespace, name)
	goldenUnseen := name != "" && d.DataVolume == nil && d.PVC == nil &&
		!(stateindex.Of(snap).Covers(state.DataVolume, naming.GoldenNamespace, name) && stateindex.Of(snap).Covers(state.PersistentVolumeClaim, naming.GoldenNamespace, name))
	if goldenUnseen && (f == findingOf(guard.DiskSmallerThanGolden, "diskSize", "") ||
		f == findingOf(guard.StorageClassMismatch, "storageClass", "") || f == findingOf(guard.HostAssistedClone, "storageClass", "")) {
		// Gap 1, by choice: a golden that was not observed (neither its
		// DataVolume nor its PVC seen, and not both kinds read) is taken
		// to be its catalog entry ("before it exists: its catalog
		// entry's"); CatalogEntryImmutable keeps a golden equal to its
		// entry, and this is what lets an offline plan refuse what the
		// values alone prove wrong. An entry edited since the golden was
		// made is refused at the catalog.
		return "gap 1: the catalog entry stands in for a golden that was not observed"
	}
	return ""
}

// smallerThanSeen reports whether the pool's disk is smaller than a size of
// its golden that is still observed: its DataVolume's request, its PVC's
// request or capacity. When the DataVolume is no longer seen, the golden's
// PVC is what the planner compares, and it is what CDI clones (CDI inflates
// a Filesystem PVC's request for the file system's overhead, so it can be
// larger than the DataVolume's).
func smallerThanSeen(p plan.Pool, st *state.State) bool {
	name := goldenOf(p)
	size := p.Spec.DiskSize
	if size == "" {
		size = chartdefaults.DiskSize
	}
	q, err := resource.ParseQuantity(size)
	if name == "" || err != nil {
		return false
	}
	d := stateindex.Of(state.NewSnapshot(st)).Disk(naming.GoldenNamespace, name)
	var seen []resource.Quantity
	if d.DataVolume != nil && d.DataVolume.Spec.Storage != nil {
		seen = append(seen, d.DataVolume.Spec.Storage.Resources.Requests[corev1.ResourceStorage])
	}
	if d.PVC != nil {
		seen = append(seen, d.PVC.Spec.Resources.Requests[corev1.ResourceStorage], d.PVC.Status.Capacity[corev1.ResourceStorage])
	}
	for _, g := range seen {
		if q.Cmp(g) < 0 {
			return true
		}
	}
	return false
}

// describeObserved says what a state observes, for failure messages.
func describeObserved(s *state.State) string {
	return fmt.Sprintf("observed %v in namespaces %v, objects %v", s.Observed, s.Namespaces, s.Objects)
}
