package chartvalues_test

import (
	"strconv"
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

// TestWarnUnknown: every key outside known warns UnknownField at its path,
// in key order, naming the nearest known key; keys starting with "_" are
// Cozystack's injected values and never warn.
func TestWarnUnknown(t *testing.T) {
	known := []string{"schematicID", "version"}
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
	chartvalues.WarnUnknown(&top, map[string]any{"storageClas": "local", "_cluster": "x"}, []string{"storageClass"}, nil)
	assert.Equal(t, []fixtures.Finding{{Reason: guard.UnknownField, Field: "storageClas"}}, fixtures.Warned(top.Warnings()),
		"at the top level the path is the key")

	var none findings.Collector
	chartvalues.WarnUnknown(&none, map[string]any{"version": nil, "_x": 1}, known, nil)
	assert.True(t, none.Empty(), "known keys and injected ones warn nothing")
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
