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
	"github.com/cozystack/kubernetes-worker-image/internal/size"
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
	_, rs := naming.GoldenName(s, plan.DefaultVersion, fld, fld)
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
			if p.Status.Phase == corev1.ClaimBound && (p.Spec.StorageClassName == nil || *p.Spec.StorageClassName == "") {
				t.Fatalf("bound PVC %s/%s has no class", p.Namespace, p.Name)
			}
			if !snap.Covers(state.PersistentVolumeClaim, p.Namespace, p.Name) {
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
			if !snap.Covers(state.DataVolume, d.Namespace, d.Name) {
				t.Fatalf("DataVolume %s/%s was not observed", d.Namespace, d.Name)
			}
		}
		if len(st.CDIs) > 1 {
			t.Fatalf("%d CDI resources", len(st.CDIs))
		}
		for k, n := range map[state.Kind]int{state.StorageClass: len(st.StorageClasses), state.StorageProfile: len(st.StorageProfiles),
			state.CDI: len(st.CDIs), state.CSIDriver: len(st.CSIDrivers)} {
			if n > 0 && !snap.Observed(k) {
				t.Fatalf("%d objects of %s, which was not observed", n, k)
			}
		}
	})
}

// TestCoverage: the generators reach every case the guards tell apart.
// Drawn by seed, so the count does not depend on -rapid.checks.
func TestCoverage(t *testing.T) {
	const draws = 1000
	seen := map[string]int{}
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
			if p.Namespace == naming.GoldenNamespace && state.NewSnapshot(st).DataVolume(p.Namespace, p.Name) == nil {
				seen["PVC-only golden"]++
			}
		}
		snap := state.NewSnapshot(st)
		for _, p := range s.Pools {
			if f, ok := plantest.Flavor(p); ok {
				golden, _ := naming.GoldenName(f.SchematicID, f.Version, nil, nil)
				if len(snap.ClonedDisks(p.Namespace, naming.PoolCAPIName(p.Name), golden)) > 0 {
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
			}
		}
		for _, r := range s.Plan() {
			seen[string(r.Outcome)]++
			for _, rr := range r.Refusals {
				seen[string(rr.Reason)]++
			}
			for _, w := range r.Warnings {
				seen[string(w.Reason)]++
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
		"profile copy", "profile csi-clone", "profile snapshot", "override copy", "override csi-clone", "several CDI resources",
		string(plan.Planned), string(plan.Refused)}
	for _, p := range plantest.Phases {
		want = append(want, "golden "+string(p))
	}
	for _, r := range []guard.Reason{guard.ConflictingImageSource, guard.InvalidSchematicID, guard.InvalidVersion, guard.InvalidImageFactoryURL,
		guard.InvalidQuantity, guard.GoldenNotInCatalog, guard.GoldenImportFailed, guard.StorageClassMismatch,
		guard.DefaultStorageClassUnresolvable, guard.FrozenStorageClassConflict, guard.DiskSmallerThanGolden, guard.HostAssistedClone,
		guard.InvalidPoolName, guard.GoldenPending, guard.GoldenImportStalled, guard.GoldenUnavailable,
		guard.StateUnverified, guard.NodeLocalStorageClass} {
		want = append(want, string(r))
	}
	for _, w := range want {
		assert.Positive(t, seen[w], "no draw of %d shows %q", draws, w)
	}
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
