package catalog

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Unmanaged names, sorted, the goldens in cozy-public (see ReadBack) that
// no entry of an enabled catalog manages: helm.sh/resource-policy: keep
// leaves a golden behind when its entry is dropped or the catalog is
// disabled. It may miss goldens when DataVolumes or PVCs in cozy-public were
// not observed (Render and Prune warn so).
func Unmanaged(cat *Catalog, snap *state.Snapshot) []string {
	names, _ := unmanaged(cat, snap)
	return names
}

func unmanaged(cat *Catalog, snap *state.Snapshot) ([]string, state.Kind) {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	names, missing := liveGoldens(snap)
	out := []string{}
	for _, n := range names {
		if !cat.manages(n) {
			out = append(out, n)
		}
	}
	return out, missing
}

// manages reports whether an entry of the enabled catalog names the golden.
func (c *Catalog) manages(golden string) bool {
	if c == nil || !c.enabled {
		return false
	}
	_, ok := c.lookupGolden(golden)
	return ok
}

// Kept is an unmanaged golden that something still clones.
type Kept struct {
	Name      string     `json:"name"`
	Consumers []Consumer `json:"consumers"`
	// BlastRadius counts the pools and templates among the consumers.
	BlastRadius Radius `json:"blastRadius"`
}

// PruneReport says which unmanaged goldens could be deleted by hand, in the
// shape of `worker-image catalog prune -o json`. It is a report: the library
// never deletes.
type PruneReport struct {
	// SafeToDelete names the unmanaged goldens that nothing clones: no
	// disk, template, VirtualMachine or DataSource, and no pool whose next
	// render would.
	SafeToDelete []string `json:"safeToDelete"`
	// Kept are the unmanaged goldens that something still clones, with
	// those consumers: deleting one would leave their pools unable to add
	// workers.
	Kept []Kept `json:"kept"`
	// Warnings say StateUnverified, naming the kind, when a consumer kind
	// or the goldens could not all be observed; then nothing is safe to
	// delete.
	Warnings guard.Warnings `json:"warnings"`
}

// Prune reports, for the goldens no entry of the catalog manages, which ones
// nothing clones (safe to delete) and which are still cloned (ConsumerIndex
// says what clones, reading pools with pools). When a consumer kind
// (state.ConsumerKinds: PVCs, DataVolumes, KubevirtMachineTemplates,
// VirtualMachines, DataSources, KubernetesNodes, HelmReleases) was not
// observed in every namespace, or a pool's golden could not be told, a
// consumer may be unseen, so nothing is reported safe to delete, and a
// StateUnverified warning names the kind (or the pool).
func Prune(cat *Catalog, snap *state.Snapshot, pools PoolReader) PruneReport {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	idx := NewConsumerIndex(snap, pools)
	names, missing := unmanaged(cat, snap)
	rep := PruneReport{SafeToDelete: []string{}, Kept: []Kept{}}
	var unsure []string
	for _, n := range names {
		switch cs := idx.Of(n); {
		case len(cs) > 0:
			rep.Kept = append(rep.Kept, Kept{Name: n, Consumers: append([]Consumer{}, cs...), BlastRadius: idx.Radius(n)})
		case idx.complete():
			rep.SafeToDelete = append(rep.SafeToDelete, n)
		default:
			unsure = append(unsure, n)
		}
	}
	seen := ""
	if len(unsure) > 0 {
		seen = " (unmanaged goldens with no consumer seen: " + strings.Join(unsure, ", ") + ")"
	}
	for _, k := range (missing | idx.unobserved).Each() {
		rep.Warnings = append(rep.Warnings, unverified(k, field.NewPath("safeToDelete"),
			"%s were not observed in every namespace, so nothing is reported safe to delete%s; read them before deleting any golden", k.Plural(), seen))
	}
	rep.Warnings = append(rep.Warnings, idx.undecidedWarnings(field.NewPath("safeToDelete"),
		"so nothing is reported safe to delete"+seen)...)
	return rep
}
