package plantest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

var fld = field.NewPath("f")

// TestSpellingsAreOneSize: every spelling of a size parses to a quantity
// equal to it.
func TestSpellingsAreOneSize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := plantest.SizeBytes().Draw(t, "bytes")
		want := resource.NewQuantity(b, resource.BinarySI)
		for _, s := range plantest.Spellings(b) {
			q, err := size.Parse(s, fld)
			if err != nil || q.Cmp(*want) != 0 {
				t.Fatalf("%q: %v, %v; want %d bytes", s, q.String(), err, b)
			}
		}
	})
}

// TestIdentifierGenerators: what the valid generators draw the planner
// accepts, what the malformed ones draw it refuses, with the reason that
// names the field.
func TestIdentifierGenerators(t *testing.T) {
	cases := map[string]struct {
		reason string
		gen    *rapid.Generator[string]
		check  func(string) guard.Refusals
		refuse guard.Reason
	}{
		"schematic ID":           {"lowercase letters and digits", plantest.SchematicID(), validID, ""},
		"malformed schematic ID": {"anything else, or too long for a golden name", plantest.MalformedSchematicID(), validID, guard.InvalidSchematicID},
		"version":                {"a release without leading zeros", plantest.Version(), validVersion, ""},
		"malformed version":      {"anything else", plantest.MalformedVersion(), validVersion, guard.InvalidVersion},
		"factory URL":            {"absolute http(s) with a host", plantest.FactoryURL(), validURL, ""},
		"malformed factory URL":  {"anything else", plantest.MalformedFactoryURL(), validURL, guard.InvalidImageFactoryURL},
		"size":                   {"a positive quantity", plantest.Size(), validSize, ""},
		"malformed size":         {"not a quantity, or not positive", plantest.MalformedSize(), validSize, guard.InvalidQuantity},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				s := tc.gen.Draw(rt, "value")
				if s == "" {
					rt.Fatalf("drew \"\", which means not set")
				}
				var got []guard.Reason
				for _, r := range tc.check(s) {
					got = append(got, r.Reason)
				}
				if tc.refuse == "" && len(got) > 0 || tc.refuse != "" && (len(got) != 1 || got[0] != tc.refuse) {
					rt.Fatalf("%q: got %v, want %q; %s", s, got, tc.refuse, tc.reason)
				}
			})
		})
	}
}

// validID checks an ID the way the golden's name needs it.
func validID(s string) guard.Refusals {
	_, rs := naming.GoldenName(s, chartdefaults.Version, fld, fld)
	return rs
}

func validVersion(s string) guard.Refusals { return naming.ValidateVersion(s, fld) }
func validURL(s string) guard.Refusals     { return naming.ValidateImageFactoryURL(s, fld) }
func validSize(s string) guard.Refusals    { _, rs := size.Parse(s, fld); return rs }

// TestConsistentState: a state drawn without Options.Inconsistent is one a
// real cluster could show.
func TestConsistentState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := plantest.Scenarios(plantest.Options{}).Draw(t, "scenario")
		st := s.State
		snap := state.NewSnapshot(st)
		pvcs := map[[2]string]bool{}
		for _, p := range st.PersistentVolumeClaims {
			key := [2]string{p.Namespace, p.Name}
			if pvcs[key] {
				t.Fatalf("two PVCs %s/%s", p.Namespace, p.Name)
			}
			pvcs[key] = true
			if p.Status.Phase == corev1.ClaimBound && (p.Spec.StorageClassName == nil || *p.Spec.StorageClassName == "") && !staticVolume(st, &p) {
				t.Fatalf("bound PVC %s/%s has no class and is not bound to a volume of none", p.Namespace, p.Name)
			}
			if !stateindex.Of(snap).Covers(state.PersistentVolumeClaim, p.Namespace, p.Name) {
				t.Fatalf("PVC %s/%s was not observed", p.Namespace, p.Name)
			}
			if p.Namespace == naming.GoldenNamespace {
				id, version, ok := naming.ParseGoldenName(p.Name)
				if !ok || p.Annotations[naming.SchematicIDAnnotation] != id || p.Annotations[naming.VersionAnnotation] != version {
					t.Fatalf("golden PVC %s does not carry its golden's name", p.Name)
				}
			}
		}
		dvs := map[[2]string]bool{}
		for _, d := range st.DataVolumes {
			key := [2]string{d.Namespace, d.Name}
			if dvs[key] {
				t.Fatalf("two DataVolumes %s/%s", d.Namespace, d.Name)
			}
			dvs[key] = true
			if !stateindex.Of(snap).Covers(state.DataVolume, d.Namespace, d.Name) {
				t.Fatalf("DataVolume %s/%s was not observed", d.Namespace, d.Name)
			}
		}
		if len(st.CDIs) > 1 {
			t.Fatalf("%d CDI resources", len(st.CDIs))
		}
		if len(st.CDIConfigs) > 1 || len(st.CDIConfigs) == 1 && st.CDIConfigs[0].Name != stateindex.CDIConfigName {
			t.Fatalf("CDIConfigs %v, want at most %q", st.CDIConfigs, stateindex.CDIConfigName)
		}
		for _, v := range st.PersistentVolumes {
			if !stateindex.Of(snap).Covers(state.PersistentVolume, "", v.Name) {
				t.Fatalf("PersistentVolume %s was not observed", v.Name)
			}
			if ref := v.Spec.ClaimRef; ref == nil || ref.Namespace != naming.GoldenNamespace {
				t.Fatalf("PersistentVolume %s is bound to %v, not to a golden's PVC", v.Name, ref)
			}
		}
		for k, n := range map[state.Kind]int{state.StorageClass: len(st.StorageClasses), state.StorageProfile: len(st.StorageProfiles),
			state.CDI: len(st.CDIs), state.CSIDriver: len(st.CSIDrivers), state.VolumeSnapshotClass: len(st.VolumeSnapshotClasses),
			state.CDIConfig: len(st.CDIConfigs)} {
			if n > 0 && !stateindex.Of(snap).Observed(k) {
				t.Fatalf("%d objects of %s, which was not observed", n, k)
			}
		}
	})
}

// staticVolume reports whether a PVC names class "" and is bound to a
// volume, which is then of no class, as a volume made by hand is.
func staticVolume(st *state.State, p *corev1.PersistentVolumeClaim) bool {
	if p.Spec.StorageClassName == nil || p.Spec.VolumeName == "" {
		return false
	}
	for _, v := range st.PersistentVolumes {
		if v.Name == p.Spec.VolumeName && v.Spec.StorageClassName != "" {
			return false
		}
	}
	return true
}

// TestCoverage: the generators reach every case the guards tell apart.
// Drawn by seed, so the count does not depend on -rapid.checks.
func TestCoverage(t *testing.T) {
	const draws = 1000
	seen := map[string]int{}
	clones, planned := 0, 0
	scenarios := plantest.Scenarios(plantest.Options{})
	inconsistent := plantest.Scenarios(plantest.Options{Inconsistent: true})
	for seed := range draws {
		s := scenarios.Example(seed)
		for _, p := range s.Pools {
			seen[source(p)]++
		}
		if s.Catalog.Enabled {
			seen["catalog enabled"]++
		} else {
			seen["catalog disabled"]++
		}
		if c := catalog.Compile(s.Catalog); len(c.Refusals()) > 0 {
			seen["catalog refused"]++
			for _, r := range c.Refusals() {
				seen["catalog "+string(r.Reason)]++
			}
		}
		st := s.State
		switch {
		case st.Observed == state.AllKinds && st.Namespaces == nil:
			seen["fully observed"]++
		case st.Observed == 0:
			seen["offline"]++
		case st.Namespaces != nil:
			seen["namespace scope"]++
		default:
			seen["some kinds unknown"]++
		}
		defaults := 0
		for _, sc := range st.StorageClasses {
			for _, a := range []string{storage.VirtDefaultAnnotation, storage.DefaultAnnotation, storage.BetaDefaultAnnotation} {
				if sc.Annotations[a] == "true" {
					seen["default "+a]++
					defaults++
				}
			}
		}
		seen[map[bool]string{true: "several defaults", false: "at most one default"}[defaults > 1]]++
		for _, d := range st.DataVolumes {
			if d.Namespace == naming.GoldenNamespace {
				seen["golden "+string(d.Status.Phase)]++
			}
		}
		for _, p := range st.PersistentVolumeClaims {
			if p.Namespace == naming.GoldenNamespace && stateindex.Of(state.NewSnapshot(st)).DataVolume(p.Namespace, p.Name) == nil {
				seen["PVC-only golden"]++
			}
		}
		snap := state.NewSnapshot(st)
		for _, p := range s.Pools {
			if f, ok := plantest.Flavor(p); ok {
				golden, _ := naming.GoldenName(f.SchematicID, f.Version, nil, nil)
				if len(stateindex.Of(snap).ClonedDisks(p.Namespace, naming.PoolCAPIName(p.Name), golden)) > 0 {
					seen["already cloned"]++
				}
			}
		}
		for _, sp := range st.StorageProfiles {
			if sp.Status.CloneStrategy != nil {
				seen["profile "+string(*sp.Status.CloneStrategy)]++
			}
		}
		for _, c := range st.CDIs {
			if c.Spec.CloneStrategyOverride != nil {
				seen["override "+string(*c.Spec.CloneStrategyOverride)]++
			} else {
				seen["no override"]++
			}
		}
		cdiCoverage(st, seen)
		cat := catalog.Compile(s.Catalog)
		for i, r := range s.Plan() {
			seen[string(r.Outcome)]++
			if f, ok := plantest.Flavor(s.Pools[i]); ok && !s.Vocabulary.Malformed && served(cat, f) {
				clones++
				if r.Outcome == plan.Planned {
					planned++
				}
			}
			for _, rr := range r.Refusals {
				seen[string(rr.Reason)]++
			}
			for _, w := range r.Warnings {
				seen[string(w.Reason)]++
				if w.Reason == guard.StorageClassNotFound || w.Reason == guard.DiskUnrenderable {
					seen["warning "+string(w.Reason)]++
				}
			}
		}
		if len(inconsistent.Example(seed).State.CDIs) > 1 {
			seen["several CDI resources"]++
		}
	}
	want := []string{"osImage absent", "osImage {}", "builtin", "factory", "builtin and factory",
		"catalog enabled", "catalog disabled", "catalog refused", "catalog " + string(guard.DuplicateCatalogEntry),
		"fully observed", "offline", "namespace scope", "some kinds unknown",
		"default " + storage.VirtDefaultAnnotation, "default " + storage.DefaultAnnotation, "default " + storage.BetaDefaultAnnotation,
		"several defaults", "at most one default", "PVC-only golden", "already cloned",
		"profile copy", "profile csi-clone", "profile snapshot", "override copy", "override csi-clone", "override snapshot", "no override",
		"several CDI resources", string(plan.Planned), string(plan.Refused),
		"CDIConfig", "no CDIConfig", "CDIConfig unobserved", "no filesystem overhead", "per-class overhead", "global overhead only",
		"profile set Block", "profile set Filesystem", "profile no sets", "profile set without access modes", "profile set nil volume mode",
		"profile spec strategy", "profile strategy \"\"", "profile snapshotClass", "profile snapshotClass missing", "profile minimum", "profile minimum unparsable",
		"snapshot class", "default snapshot class", "snapshot class of no class's driver",
		"golden volume of its class's driver", "golden volume of another driver", "golden volume host path",
		"golden volume claimed elsewhere", "golden volume missing", "golden volume unobserved", "golden of no class",
		"warning " + string(guard.StorageClassNotFound), "warning " + string(guard.DiskUnrenderable)}
	for _, p := range plantest.Phases {
		want = append(want, "golden "+string(p))
	}
	for _, r := range []guard.Reason{guard.ConflictingImageSource, guard.InvalidSchematicID, guard.InvalidVersion, guard.InvalidImageFactoryURL,
		guard.InvalidQuantity, guard.GoldenNotInCatalog, guard.GoldenImportFailed, guard.StorageClassMismatch,
		guard.DefaultStorageClassUnresolvable, guard.FrozenStorageClassConflict, guard.DiskSmallerThanGolden, guard.HostAssistedClone,
		guard.InvalidPoolName, guard.GoldenPending, guard.GoldenImportStalled, guard.GoldenUnavailable,
		guard.StateUnverified, guard.NodeLocalStorageClass, guard.StorageClassNotFound, guard.DiskUnrenderable} {
		want = append(want, string(r))
	}
	for _, w := range want {
		assert.Positive(t, seen[w], "no draw of %d shows %q", draws, w)
	}
	// Clones CDI makes are drawn often, not only the ways they fail: of
	// the well-formed builtin pools whose flavor the catalog serves, so
	// that the cluster decides, a third or more are planned.
	assert.GreaterOrEqual(t, 3*planned, clones, "%d of %d served builtin pools planned", planned, clones)
	t.Logf("%d of %d served builtin pools planned", planned, clones)
}

// served reports whether the enabled catalog holds the flavor, valid.
func served(cat *catalog.Catalog, f catalog.Flavor) bool {
	e, ok := cat.Lookup(f)
	return ok && cat.Enabled() && len(e.Refusals()) == 0
}

// cdiCoverage counts what a state shows of CDI's objects and of the goldens'
// volumes.
func cdiCoverage(st *state.State, seen map[string]int) {
	snap := state.NewSnapshot(st)
	switch {
	case !stateindex.Of(snap).Observed(state.CDIConfig):
		seen["CDIConfig unobserved"]++
	case stateindex.Of(snap).CDIConfig() == nil:
		seen["no CDIConfig"]++
	default:
		seen["CDIConfig"]++
		fo := stateindex.Of(snap).CDIConfig().Status.FilesystemOverhead
		switch {
		case fo == nil:
			seen["no filesystem overhead"]++
		case len(fo.StorageClass) < len(st.StorageClasses):
			seen["global overhead only"]++
		default:
			seen["per-class overhead"]++
		}
	}
	for _, sp := range st.StorageProfiles {
		sets := sp.Status.ClaimPropertySets
		switch {
		case len(sets) == 0:
			seen["profile no sets"]++
		case len(sets[0].AccessModes) == 0:
			seen["profile set without access modes"]++
		case sets[0].VolumeMode == nil:
			seen["profile set nil volume mode"]++
		default:
			seen["profile set "+string(*sets[0].VolumeMode)]++
		}
		if sp.Spec.CloneStrategy != nil {
			seen["profile spec strategy"]++
		}
		if s := sp.Status.CloneStrategy; s != nil && *s == "" {
			seen["profile strategy \"\""]++
		}
		if sc := sp.Status.SnapshotClass; sc != nil {
			seen["profile snapshotClass"]++
			if stateindex.Of(snap).VolumeSnapshotClass(*sc) == nil {
				seen["profile snapshotClass missing"]++
			}
		}
		if m, ok := sp.Annotations[cdi.MinimumSupportedPVCSizeAnnotation]; ok {
			seen["profile minimum"]++
			if _, err := resource.ParseQuantity(m); err != nil {
				seen["profile minimum unparsable"]++
			}
		}
	}
	drivers := map[string]bool{}
	for _, sc := range st.StorageClasses {
		drivers[sc.Provisioner] = true
	}
	for _, v := range st.VolumeSnapshotClasses {
		seen["snapshot class"]++
		if v.Annotations[stateindex.DefaultSnapshotClassAnnotation] == "true" {
			seen["default snapshot class"]++
		}
		if !drivers[v.Driver] {
			seen["snapshot class of no class's driver"]++
		}
	}
	for _, p := range st.PersistentVolumeClaims {
		if p.Namespace != naming.GoldenNamespace || p.Spec.VolumeName == "" {
			continue
		}
		if p.Spec.StorageClassName != nil && *p.Spec.StorageClassName == "" {
			seen["golden of no class"]++
		}
		class := ""
		if sc := stateindex.Of(snap).StorageClass(deref(p.Spec.StorageClassName)); sc != nil {
			class = sc.Provisioner
		}
		switch v := stateindex.Of(snap).PersistentVolume(p.Spec.VolumeName); {
		case !stateindex.Of(snap).Covers(state.PersistentVolume, "", p.Spec.VolumeName):
			seen["golden volume unobserved"]++
		case v == nil:
			seen["golden volume missing"]++
		case v.Spec.ClaimRef.Name != p.Name:
			seen["golden volume claimed elsewhere"]++
		case v.Spec.CSI == nil:
			seen["golden volume host path"]++
		case v.Spec.CSI.Driver == class:
			seen["golden volume of its class's driver"]++
		default:
			seen["golden volume of another driver"]++
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func source(p plan.Pool) string {
	img := p.Spec.OSImage
	switch {
	case img == nil:
		return "osImage absent"
	case img.Builtin != nil && img.Factory != nil:
		return "builtin and factory"
	case img.Builtin != nil:
		return "builtin"
	case img.Factory != nil:
		return "factory"
	}
	return "osImage {}"
}
