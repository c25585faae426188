package cli

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
)

// yamlish draws strings from what YAML reads specially: indicators,
// quotes, spaces, line breaks, the words YAML 1.1 reads as booleans or
// null, numbers, timestamps, and the letters of ordinary values.
func yamlish() *rapid.Generator[string] {
	piece := rapid.OneOf(
		rapid.SampledFrom([]string{"a", "Z", "0", "9", ".", "_", "/", ":", "%", "+", "=", "@", "~", "-", " ", "#", "\"", "'", "\\",
			"\n", "\t", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "?", "`", "é", "\x1b"}),
		rapid.SampledFrom([]string{"yes", "No", "ON", "off", "True", "false", "null", "Null", "y", "N", "~", ".inf", "0x1F", "1e3",
			"2026-12-01", "1:20", "https://", "20Gi", "v1.13.6"}),
	)
	return rapid.Custom(func(t *rapid.T) string {
		s := ""
		for _, p := range rapid.SliceOfN(piece, 0, 6).Draw(t, "pieces") {
			s += p
		}
		return s
	})
}

// TestSafeValuesReadBack: a value plainSafe says may be written plain, or
// quoteSafe double-quoted, reads back from YAML as exactly itself, which is
// what lets chartEntry skip parsing the entry back.
func TestSafeValuesReadBack(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := yamlish().Draw(t, "s")
		if plainSafe(s) {
			var m map[string]any
			if err := yaml.Unmarshal([]byte("k: "+s+"\n"), &m); err != nil || m["k"] != s {
				t.Fatalf("plain %q reads back as %#v (%v)", s, m["k"], err)
			}
		}
		if quoteSafe(s) {
			var m map[string]any
			if err := yaml.Unmarshal([]byte("k: "+strconv.Quote(s)+"\n"), &m); err != nil || m["k"] != s {
				t.Fatalf("quoted %q reads back as %#v (%v)", s, m["k"], err)
			}
		}
	})
}

// TestSafeValuesJustClear: the values the planner writes are safe, and
// their nearest neighbours YAML reads otherwise are not.
func TestSafeValuesJustClear(t *testing.T) {
	for s, want := range map[string]bool{
		"https://factory.talos.dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz": true,
		"talos-worker-ce4c-v1.13.6": true, "cozy-public": true, "disk-system": true,
		"yes": false, "Off": false, "null": false, "a:": false, "a b": false, "a#b": false, "1a": false, "": false, "-a": false,
	} {
		if got := plainSafe(s); got != want {
			t.Errorf("plainSafe(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"20Gi": true, "1.073741824e+12": true, "": true, `a"b`: false, `a\b`: false, "a\nb": false, "é": false} {
		if got := quoteSafe(s); got != want {
			t.Errorf("quoteSafe(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestChartEntryShortcut: for drawn plans, including hostile talos.*
// values on the HTTP path, an entry readsBackAsWritten takes without
// parsing does parse back to its disk.
func TestChartEntryShortcut(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := plantest.Scenarios(plantest.Options{}).Draw(t, "scenario")
		for _, r := range s.Plan() {
			if r.Outcome != plan.Planned || !readsBackAsWritten(r) {
				continue
			}
			text, err := helm.DiskText(r, helm.ChartIndent)
			if err != nil {
				t.Fatal(err)
			}
			if !parsesBack(r, text) {
				t.Fatalf("%s/%s: taken without parsing, but its text does not parse back:\n%s", r.Namespace, r.Name, text)
			}
		}
	})
}
