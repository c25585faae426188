package plantest

import (
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// Pool draws a KubernetesNodes pool in one of the vocabulary's namespaces:
// every image source (osImage absent, {}, builtin, factory, both), every
// optional field present or absent, diskSize in any unit or "" (the
// chart's 20Gi), rarely under the 1MiB CDI admits, storageClass named,
// unknown to the cluster or "" (the cluster default). For a Malformed vocabulary, identifiers and diskSize
// are sometimes malformed and the name is sometimes not
// "<cluster>-<pool>" or the cluster unset.
//
// A builtin pool usually names (or falls back to) one of the vocabulary's
// flavors, so that it meets the catalog's entries and the cluster's goldens.
func (v Vocabulary) Pool() *rapid.Generator[plan.Pool] {
	return rapid.Custom(func(t *rapid.T) plan.Pool {
		cluster := rapid.SampledFrom(v.clusters).Draw(t, "cluster")
		p := plan.Pool{
			Namespace: rapid.SampledFrom(v.Namespaces).Draw(t, "namespace"),
			Spec:      plan.DefaultPoolSpec(cluster),
		}
		p.Name = cluster + "-" + rapid.SampledFrom([]string{"md0", "md1", "gpu"}).Draw(t, "pool")
		if v.Malformed {
			p.Name = malformedPoolName(t, p.Name, cluster)
		}
		if v.Malformed && chance(t, "clusterUnset", 20) {
			p.Spec.Cluster = ""
		}
		p.Spec.DiskSize = v.diskSize(t)
		switch pick(t, "storageClass", 10, 6, 2, 1) {
		case 1:
			p.Spec.StorageClass = ""
		case 2:
			p.Spec.StorageClass = rapid.SampledFrom(v.Classes).Draw(t, "class")
		case 3:
			p.Spec.StorageClass = "absent-class"
		}
		p.Spec.Talos = v.talos(t)
		switch pick(t, "osImage", 3, 5, 2, 1, 1) {
		case 1:
			p.Spec.OSImage = &plan.OSImage{Builtin: v.builtin(t, p.Spec.Talos)}
		case 2:
			p.Spec.OSImage = &plan.OSImage{Factory: v.factory(t)}
		case 3:
			p.Spec.OSImage = &plan.OSImage{}
		case 4:
			p.Spec.OSImage = &plan.OSImage{Builtin: v.builtin(t, p.Spec.Talos), Factory: v.factory(t)}
		}
		return p
	})
}

// malformedPoolName is, sometimes, a name the chart refuses instead of
// "<cluster>-<pool>".
func malformedPoolName(t *rapid.T, name, cluster string) string {
	switch pick(t, "poolName", 12, 1, 1, 1) {
	case 1:
		return "other" + name[len(cluster):]
	case 2:
		return cluster + "-"
	case 3:
		return name[len(cluster)+1:]
	}
	return name
}

func (v Vocabulary) diskSize(t *rapid.T) string {
	switch pick(t, "diskSize", 32, 8, 4, 1) {
	case 1:
		return ""
	case 2:
		if v.Malformed {
			return malformedSize().Draw(t, "malformedDiskSize")
		}
	case 3:
		// A positive quantity CDI's webhook still rejects: under 1MiB.
		return rapid.SampledFrom([]string{"512Ki", "1000Ki", "1M", "1048575"}).Draw(t, "tinyDiskSize")
	}
	b := rapid.SampledFrom(diskSizes).Draw(t, "diskBytes")
	return spelling(b).Draw(t, "diskSizeSpelling")
}

// diskSizes are a pool's disk sizes: usually the chart's 20Gi, sometimes
// exactly a golden's 6Gi, or one byte less.
var diskSizes = []int64{20 * gi, 20 * gi, 20 * gi, 20 * gi, 10 * gi, 8 * gi, 6*gi + 512*mi, 6 * gi, 6*gi - 1, 5 * gi}

// talos is the chart's talos values: usually the defaults, sometimes
// another flavor of the vocabulary, sometimes values only the HTTP path
// renders as given.
func (v Vocabulary) talos(t *rapid.T) plan.Talos {
	tl := plan.DefaultTalos()
	switch pick(t, "talos", 16, 8, 1) {
	case 1:
		f := rapid.SampledFrom(v.flavors).Draw(t, "talosFlavor")
		tl.SchematicID, tl.Version = f.SchematicID, f.Version
	case 2:
		tl.SchematicID = v.anyOf(t, "talosSchematicID", schematicID(), malformedSchematicID())
		tl.Version = v.anyOf(t, "talosVersion", version(), malformedVersion())
	}
	if chance(t, "talosFactory", 4) {
		tl.ImageFactoryURL = v.anyOf(t, "talosFactoryURL", factoryURL(), malformedFactoryURL())
	}
	if chance(t, "installerRepository", 4) {
		// A mirror, sometimes written with a trailing "/", which the chart
		// trims.
		tl.InstallerRepository = rapid.SampledFrom([]string{"registry.example/talos/installer", "registry.example/talos/installer/"}).Draw(t, "installerRepository")
	}
	return tl
}

// builtin names a flavor: usually one of the vocabulary's, with both
// fields, with only those that differ from talos.*, or with none (talos.*
// is the flavor); sometimes a field names another flavor, perhaps
// malformed.
func (v Vocabulary) builtin(t *rapid.T, tl plan.Talos) *catalog.Flavor {
	b := &catalog.Flavor{}
	switch pick(t, "builtinFields", 2, 3, 2) {
	case 1:
		f := rapid.SampledFrom(v.flavors).Draw(t, "builtinFlavor")
		b.SchematicID, b.Version = f.SchematicID, f.Version
	case 2:
		f := rapid.SampledFrom(v.flavors).Draw(t, "builtinFlavor")
		if f.SchematicID != tl.SchematicID {
			b.SchematicID = f.SchematicID
		}
		if f.Version != tl.Version {
			b.Version = f.Version
		}
	}
	if chance(t, "builtinOtherSchematicID", 20) {
		b.SchematicID = v.anyOf(t, "builtinSchematicID", schematicID(), malformedSchematicID())
	}
	if chance(t, "builtinOtherVersion", 20) {
		b.Version = v.anyOf(t, "builtinVersion", version(), malformedVersion())
	}
	return b
}

// factory overrides talos.* field by field: "" (falling back), valid or
// malformed.
func (v Vocabulary) factory(t *rapid.T) *plan.Factory {
	f := &plan.Factory{}
	if chance(t, "factorySchematicIDSet", 2) {
		f.SchematicID = v.anyOf(t, "factorySchematicID", schematicID(), malformedSchematicID())
	}
	if chance(t, "factoryVersionSet", 2) {
		f.Version = v.anyOf(t, "factoryVersion", version(), malformedVersion())
	}
	if chance(t, "factoryURLSet", 2) {
		f.ImageFactoryURL = v.anyOf(t, "factoryURL", factoryURL(), malformedFactoryURL())
	}
	return f
}

// anyOf draws from valid or, for a Malformed vocabulary one time in four,
// from malformed.
func (v Vocabulary) anyOf(t *rapid.T, label string, valid, malformed *rapid.Generator[string]) string {
	if v.Malformed && chance(t, label+"Malformed", 4) {
		return malformed.Draw(t, label)
	}
	return valid.Draw(t, label)
}

// Flavor is the flavor a builtin pool clones, after defaulting from talos.*,
// and whether it names a golden at all (valid identifiers). It is false for
// a pool that does not use osImage.builtin alone.
func Flavor(p plan.Pool) (catalog.Flavor, bool) {
	img := p.Spec.OSImage
	if img == nil || img.Builtin == nil || img.Factory != nil {
		return catalog.Flavor{}, false
	}
	f := catalog.Flavor{SchematicID: img.Builtin.SchematicID, Version: img.Builtin.Version}
	if f.SchematicID == "" {
		f.SchematicID = p.Spec.Talos.SchematicID
	}
	if f.Version == "" {
		f.Version = p.Spec.Talos.Version
	}
	return f, goldenName(f) != ""
}
