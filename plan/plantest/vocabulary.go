package plantest

import (
	"slices"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
)

// The provisioners a drawn StorageClass may have. noProvisioner has no
// CSIDriver in any drawn cluster, so it cannot clone.
const (
	replicatedProvisioner = "replicated.csi.example.com"
	localProvisioner      = "local.csi.example.com"
	noProvisioner         = "kubernetes.io/no-provisioner"
)

// Vocabulary is the few names one draw shares, so that pools, catalog
// entries and cluster objects meet: pools pick the flavors the catalog
// holds, disks sit on the classes the cluster has, goldens are named after
// the entries. Drawn independently, they would almost never meet.
type Vocabulary struct {
	// flavors are valid and distinct; the first is the charts' default
	// flavor, so that a pool's talos defaults and the default catalog
	// meet.
	flavors []catalog.Flavor
	// Classes are StorageClass names, distinct; a drawn cluster has some
	// of them.
	Classes []string
	// Provisioners holds each class's provisioner, by index.
	Provisioners []string
	// Namespaces are tenant namespaces, distinct.
	Namespaces []string
	// clusters are parent cluster names, distinct.
	clusters []string
	// Malformed lets pools and catalog values carry what the planner
	// refuses on its own: names that are not "<cluster>-<pool>", malformed
	// identifiers and sizes, repeated catalog entries. Without it they are
	// well-formed, and what decides a plan is the cluster.
	Malformed bool
}

// defaultFlavor is the charts' default Talos flavor.
var defaultFlavor = catalog.Flavor{SchematicID: chartdefaults.SchematicID, Version: chartdefaults.Version}

// Vocabularies draws a Vocabulary: the default flavor and up to two others,
// one to three classes (most often with the charts' default "replicated"),
// one or two tenant namespaces and clusters; Malformed one time in two.
func Vocabularies() *rapid.Generator[Vocabulary] {
	return rapid.Custom(func(t *rapid.T) Vocabulary {
		var v Vocabulary
		others := rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) catalog.Flavor {
			return catalog.Flavor{
				SchematicID: rapid.SampledFrom([]string{"abc123", "f00d", chartdefaults.SchematicID}).Draw(t, "schematicID"),
				Version:     rapid.SampledFrom([]string{"v1.12.0", "v1.13.6", "v1.14.0"}).Draw(t, "version"),
			}
		}).Filter(func(f catalog.Flavor) bool { return f != defaultFlavor }), 0, 2, rapid.ID[catalog.Flavor]).Draw(t, "otherFlavors")
		v.flavors = append([]catalog.Flavor{defaultFlavor}, others...)
		v.Classes = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{chartdefaults.StorageClass, chartdefaults.StorageClass, "local", "ceph"}), 1, 3, rapid.ID[string]).Draw(t, "classes")
		if !slices.Contains(v.Classes, chartdefaults.StorageClass) && !chance(t, "noChartClass", 8) {
			// Most clusters have the class the charts default to.
			v.Classes = append([]string{chartdefaults.StorageClass}, v.Classes[:min(len(v.Classes), 2)]...)
		}
		for range v.Classes {
			v.Provisioners = append(v.Provisioners, rapid.SampledFrom([]string{replicatedProvisioner, replicatedProvisioner, replicatedProvisioner, replicatedProvisioner, localProvisioner, localProvisioner, localProvisioner, noProvisioner}).Draw(t, "provisioner"))
		}
		v.Namespaces = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"tenant-a", "tenant-b", "tenant-c"}), 1, 2, rapid.ID[string]).Draw(t, "namespaces")
		v.clusters = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"demo", "prod"}), 1, 2, rapid.ID[string]).Draw(t, "clusters")
		v.Malformed = rapid.Bool().Draw(t, "malformed")
		return v
	})
}

// provisioner is a class's provisioner ("" for a class outside the
// vocabulary).
func (v Vocabulary) provisioner(class string) string {
	for i, c := range v.Classes {
		if c == class {
			return v.Provisioners[i]
		}
	}
	return ""
}
