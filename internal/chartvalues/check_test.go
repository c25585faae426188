package chartvalues_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// TestNearest: a case-blind match first, else the fewest edits, the first
// known name on a tie.
func TestNearest(t *testing.T) {
	poolKeys := []string{"cluster", "storageClass", "diskSize", "talos", "osImage"}
	cases := map[string]struct {
		reason string
		name   string
		known  []string
		want   string
	}{
		"osimage": {
			reason: "only the case differs",
			name:   "osimage", known: poolKeys, want: "osImage",
		},
		"schematicId": {
			reason: "only the case differs, beside a name fewer edits away in case",
			name:   "schematicId", known: []string{"version", "schematicID"}, want: "schematicID",
		},
		"case-blind first": {
			reason: "ID is IDs with one edit, but id with none once case is set aside",
			name:   "ID", known: []string{"IDs", "id"}, want: "id",
		},
		"storageClas": {
			reason: "one edit away",
			name:   "storageClas", known: poolKeys, want: "storageClass",
		},
		"fewest edits": {
			reason: "diskSise is one edit from diskSize, more from the rest",
			name:   "diskSise", known: poolKeys, want: "diskSize",
		},
		"tie": {
			reason: "two names one edit away: the first known",
			name:   "ab", known: []string{"ax", "ay"}, want: "ax",
		},
		"runes": {
			reason: "edits count runes, not bytes",
			name:   "größe", known: []string{"grosse", "größer"}, want: "größer",
		},
		"none known": {
			reason: "nothing to suggest",
			name:   "x", known: nil, want: "",
		},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, chartvalues.Nearest(tc.name, tc.known), "%s: %s", name, tc.reason)
	}
}

// TestNearestLongName: a key of a mebibyte is compared by its first 128
// runes, so that its suggestion costs what a misspelling's does; within
// those runes the nearest is as for any name.
func TestNearestLongName(t *testing.T) {
	poolKeys := []string{"cluster", "storageClass", "diskSize", "talos", "osImage"}
	long := "storageClas" + strings.Repeat("x", 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := chartvalues.Nearest(long, poolKeys)
	runtime.ReadMemStats(&after)
	assert.Equal(t, "storageClass", got)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10), "bytes allocated for one suggestion")

	// Just inside the bound: the name's 128th rune still counts.
	at128 := strings.Repeat("a", 127) + "b"
	assert.Equal(t, strings.Repeat("a", 127)+"b", chartvalues.Nearest(at128, []string{strings.Repeat("a", 128), strings.Repeat("a", 127) + "b"}))
	// Past it: the 129th rune does not.
	past := strings.Repeat("a", 128) + "b"
	assert.Equal(t, strings.Repeat("a", 128), chartvalues.Nearest(past, []string{strings.Repeat("a", 128), strings.Repeat("a", 128) + "b"}))
}

// TestWarnUnknown: every key outside known warns UnknownField at its path,
// in key order, naming the nearest known key; keys starting with "_" are
// Cozystack's injected values and never warn.
func TestWarnUnknown(t *testing.T) {
	known := chartvalues.NewKeys("schematicID", "version")
	m := map[string]any{
		"version":     "v1.13.6",
		"verison":     "v1.13.6",
		"schematicId": "abc",
		"_namespace":  map[string]any{"etcd": "tenant-root"},
		"_":           nil,
		"Aardvark":    1.0,
	}
	var c findings.Collector
	chartvalues.WarnUnknown(&c, m, known, field.NewPath("osImage", "builtin"))
	assert.Empty(t, c.Refusals(), "an unknown key refuses nothing")
	assert.Equal(t, []fixtures.Finding{
		{Reason: guard.UnknownField, Field: "osImage.builtin.Aardvark"},
		{Reason: guard.UnknownField, Field: "osImage.builtin.schematicId"},
		{Reason: guard.UnknownField, Field: "osImage.builtin.verison"},
	}, fixtures.Warned(c.Warnings()), "sorted by key; the _ keys skipped")
	near := map[string]string{"osImage.builtin.schematicId": "schematicID", "osImage.builtin.verison": "version"}
	for _, w := range c.Warnings() {
		if n, ok := near[w.Field]; ok {
			// The suggestion is carried only by the detail: it must be
			// there, quoted, whatever the wording around it.
			assert.Contains(t, w.Detail, strconv.Quote(n), "%s suggests %s", w.Field, n)
		}
	}

	var top findings.Collector
	chartvalues.WarnUnknown(&top, map[string]any{"storageClas": "local", "_cluster": "x"}, chartvalues.NewKeys("storageClass"), nil)
	assert.Equal(t, []fixtures.Finding{{Reason: guard.UnknownField, Field: "storageClas"}}, fixtures.Warned(top.Warnings()),
		"at the top level the path is the key")

	var none findings.Collector
	chartvalues.WarnUnknown(&none, map[string]any{"version": nil, "_x": 1}, known, nil)
	assert.True(t, none.Empty(), "known keys and injected ones warn nothing")
}

// TestWarnUnknownCounts: a map no larger than the known and injected keys
// is judged by counting the ones it holds; one unknown key among them, in
// place of a known one or beside them, still warns, and a "_" key other
// than the injected ones makes the count fall short but warns nothing.
func TestWarnUnknownCounts(t *testing.T) {
	known := chartvalues.NewKeys("cluster", "diskSize", "storageClass")
	cases := map[string]struct {
		m    map[string]any
		want []fixtures.Finding
	}{
		"every known key":                 {m: map[string]any{"cluster": "a", "diskSize": "b", "storageClass": "c"}},
		"known and injected, full":        {m: map[string]any{"cluster": "a", "diskSize": "b", "storageClass": "c", "_namespace": nil, "_cluster": nil}},
		"empty":                           {m: map[string]any{}},
		"an unknown key for a known one":  {m: map[string]any{"cluster": "a", "diskSise": "b"}, want: []fixtures.Finding{{Reason: guard.UnknownField, Field: "diskSise"}}},
		"an unknown key beside them":      {m: map[string]any{"cluster": "a", "diskSize": "b", "storageClass": "c", "_namespace": nil, "x": 1}, want: []fixtures.Finding{{Reason: guard.UnknownField, Field: "x"}}},
		"past the count, unknown":         {m: map[string]any{"cluster": "a", "diskSize": "b", "storageClass": "c", "_namespace": nil, "_cluster": nil, "x": 1}, want: []fixtures.Finding{{Reason: guard.UnknownField, Field: "x"}}},
		"another _ key, nothing unknown":  {m: map[string]any{"cluster": "a", "_other": 1}},
		"another _ key beside an unknown": {m: map[string]any{"_other": 1, "Cluster": "a"}, want: []fixtures.Finding{{Reason: guard.UnknownField, Field: "Cluster"}}},
	}
	for name, tc := range cases {
		var c findings.Collector
		chartvalues.WarnUnknown(&c, tc.m, known, nil)
		assert.Equal(t, tc.want, fixtures.Warned(c.Warnings()), name)
	}
}

// TestNewKeys: keys are named once each and none starts with "_".
func TestNewKeys(t *testing.T) {
	assert.Equal(t, []string{"b", "a"}, chartvalues.NewKeys("b", "a").Names(), "in the order given")
	assert.PanicsWithValue(t, `chartvalues.NewKeys: "a" is named twice`, func() { chartvalues.NewKeys("a", "b", "a") })
	assert.PanicsWithValue(t, `chartvalues.NewKeys: "_x" starts with "_", which marks the values Cozystack injects`, func() { chartvalues.NewKeys("a", "_x") })
	k := chartvalues.NewKeys("a")
	k.Names()[0] = "changed"
	assert.Equal(t, []string{"a"}, k.Names(), "Names is the caller's copy")
}

// TestRefuseType: a value of a type the chart cannot read is refused
// InvalidValue at its path, with the value.
func TestRefuseType(t *testing.T) {
	var c findings.Collector
	fld := field.NewPath("nodeGroups", "md0", "roles")
	chartvalues.RefuseType(&c, "ingress-nginx", chartvalues.Texts, fld)
	chartvalues.RefuseType(&c, 20.0, chartvalues.Text, field.NewPath("storageClass"))
	chartvalues.RefuseType(&c, "false", chartvalues.Bool, field.NewPath("enabled"))
	assert.Equal(t, []fixtures.Finding{
		{Reason: guard.InvalidValue, Field: "nodeGroups.md0.roles"},
		{Reason: guard.InvalidValue, Field: "storageClass"},
		{Reason: guard.InvalidValue, Field: "enabled"},
	}, fixtures.Of(c.Refusals()))
	assert.Equal(t, []any{"ingress-nginx", 20.0, "false"}, []any{c.Refusals()[0].BadValue, c.Refusals()[1].BadValue, c.Refusals()[2].BadValue},
		"each refusal holds the value it refuses")
	assert.Empty(t, c.Warnings())
}

// TestTextAt: a string value as the charts' schemas take one, for the pool
// and the catalog decoders alike: absent is the default, null is "" (Helm
// deletes the default with it), a string is itself, and anything else is
// refused InvalidValue at the field and read as "".
func TestTextAt(t *testing.T) {
	fld := field.NewPath("storageClass")
	cases := map[string]struct {
		m       map[string]any
		want    string
		refused bool
	}{
		"absent":   {map[string]any{}, "replicated", false},
		"null":     {map[string]any{"storageClass": nil}, "", false},
		"string":   {map[string]any{"storageClass": "fast"}, "fast", false},
		"empty":    {map[string]any{"storageClass": ""}, "", false},
		"a number": {map[string]any{"storageClass": 5.0}, "", true},
		"a map":    {map[string]any{"storageClass": map[string]any{}}, "", true},
	}
	for name, tc := range cases {
		var c findings.Collector
		if got := chartvalues.TextAt(&c, tc.m, "storageClass", "replicated", fld); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
		if rs := c.Refusals(); tc.refused != (len(rs) == 1 && rs[0].Reason == guard.InvalidValue && rs[0].Field == "storageClass") || !tc.refused && len(rs) != 0 {
			t.Errorf("%s: refusals %v", name, rs)
		}
	}
}
