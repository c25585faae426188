package catalog

import (
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// ReadBack builds catalog values from the goldens in a cluster, for callers
// that see the cluster but not the catalog's values. A golden is a
// DataVolume, or a PVC, in cozy-public with the label
// app.kubernetes.io/managed-by: cozystack and both flavor annotations, named
// after them (a golden known by its PVC alone counts: CDI can
// garbage-collect a completed DataVolume).
//
// The values read back are enabled and hold one entry per golden, by name,
// each with the golden's class, size and source factory as the golden has
// them. The global class is empty, so an entry for a classless golden stays
// classless; where a golden does not show its size or factory (a PVC without
// CDI's import-endpoint annotation), the entry falls back to the chart's
// default. It warns StateUnverified when the goldens could not be observed,
// since the values read back may then miss some.
func ReadBack(snap *state.Snapshot) (Values, guard.Warnings) {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	v := Values{Enabled: true, ImageFactoryURL: chartdefaults.ImageFactoryURL, Storage: chartdefaults.Storage, Images: []Image{}}
	names, missing := liveGoldens(snap)
	for _, name := range names {
		id, version, _ := naming.ParseGoldenName(name)
		g := golden.Observe(name, nil, snap)
		img := Image{Flavor: Flavor{SchematicID: id, Version: version}, StorageClass: g.NamedClass, ImageFactoryURL: factoryOf(g.URL, id, version)}
		if !g.Request.IsZero() {
			img.Storage = g.Request.String()
		}
		v.Images = append(v.Images, img)
	}
	var warnings guard.Warnings
	for _, k := range missing.Each() {
		warnings = append(warnings, unverified(k, field.NewPath("images"),
			"%s in %s were not observed, so the catalog read back from the goldens may miss some; read them, or pass the catalog's values",
			k.Plural(), naming.GoldenNamespace))
	}
	return v, warnings
}

// FromCluster compiles the catalog read back from the goldens in a cluster
// (ReadBack). When the goldens were not all observed, the catalog says so
// (Catalog.UnobservedKinds), and a planner treats a flavor missing from it as
// unverified rather than absent.
func FromCluster(snap *state.Snapshot) (*Catalog, guard.Warnings) {
	v, warnings := ReadBack(snap)
	c := Compile(v)
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	_, c.unobserved = liveGoldens(snap)
	return c, warnings
}

// factoryOf recovers the factory from a golden's source URL, "" when the
// URL is not one naming.ImageURL makes for the flavor.
func factoryOf(url, schematicID, version string) string {
	suffix := naming.ImageURL("", schematicID, version)
	if factory, ok := strings.CutSuffix(url, suffix); ok && factory != "" {
		return factory
	}
	return ""
}

// goldenFlavor reports whether an object's metadata marks it a golden: in
// cozy-public, labelled managed-by cozystack, annotated with a flavor, and
// named after that flavor. An object named otherwise is not one the catalog
// made, and no pool would find it by its flavor.
func goldenFlavor(m *metav1.ObjectMeta) bool {
	if m.Namespace != naming.GoldenNamespace || m.Labels[naming.ManagedByLabel] != naming.ManagedBy {
		return false
	}
	id, version := m.Annotations[naming.SchematicIDAnnotation], m.Annotations[naming.VersionAnnotation]
	if id == "" || version == "" {
		return false
	}
	pid, pversion, ok := naming.ParseGoldenName(m.Name)
	return ok && pid == id && pversion == version
}

// liveGoldens lists the goldens in cozy-public by name, sorted, and the kinds
// that were not observed there (the list may then miss goldens).
func liveGoldens(snap *state.Snapshot) ([]string, state.Kind) {
	var missing state.Kind
	for _, k := range []state.Kind{state.DataVolume, state.PersistentVolumeClaim} {
		if !stateindex.Of(snap).CoversNamespace(k, naming.GoldenNamespace) {
			missing |= k
		}
	}
	seen := map[string]bool{}
	// Only what the snapshot kept counts: it drops objects of a kind or
	// namespace it did not observe.
	for dv := range stateindex.Of(snap).DataVolumes() {
		if goldenFlavor(&dv.ObjectMeta) {
			seen[dv.Name] = true
		}
	}
	for p := range stateindex.Of(snap).PersistentVolumeClaims() {
		if goldenFlavor(&p.ObjectMeta) {
			seen[p.Name] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, missing
}
