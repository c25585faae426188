package chartvalues

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

// Kind is the type a chart reads a value as.
type Kind int

const (
	// Text is a string, as the charts' values schemas take it: a number
	// or a boolean there fails the release.
	Text Kind = iota
	// Quantity is what the charts' values schemas take for a size or a
	// CPU count: a whole number, or a string (which Quantity's pattern
	// judges apart, as InvalidQuantity). A fraction such as 1.5 fails the
	// schema's "integer", a boolean both branches of its anyOf.
	Quantity
	// Whole is a whole number, as the charts' values schemas take an
	// "integer": of any sign and size (1e21 too, which no int64 holds).
	Whole
	// Bool is true or false.
	Bool
	// Texts is a list of strings.
	Texts
	// Object is a map.
	Object
	// Objects is a list of maps.
	Objects
)

func (k Kind) String() string {
	switch k {
	case Text:
		return "a string"
	case Quantity:
		return "a quantity (a whole number, or a string such as 20Gi or 500m)"
	case Whole:
		return "a whole number"
	case Bool:
		return "a boolean"
	case Texts:
		return "a list of strings"
	case Object:
		return "a map"
	case Objects:
		return "a list of maps"
	}
	return fmt.Sprintf("kind %d", int(k))
}

// Accepts reports whether v has a type the chart reads where k belongs
// (for Texts and Objects, only the list itself: its items are checked one
// by one).
func (k Kind) Accepts(v any) bool {
	switch k {
	case Text:
		_, isString := v.(string)
		return isString
	case Quantity:
		if _, ok := v.(string); ok {
			return true
		}
		f, ok := Float(v)
		return ok && f == math.Trunc(f)
	case Whole:
		f, ok := Float(v)
		return ok && f == math.Trunc(f)
	case Bool:
		_, ok := v.(bool)
		return ok
	case Texts, Objects:
		_, ok := List(v)
		return ok
	case Object:
		_, ok := Map(v)
		return ok
	}
	return false
}

// RefuseType refuses InvalidValue at fld: v has a type the chart cannot
// read where k belongs. The message says what to write instead.
func RefuseType(c *findings.Collector, v any, k Kind, fld *field.Path) {
	way := "write " + k.String()
	switch {
	case k == Text && IsScalar(v):
		way = "quote it, as in " + fld.String() + `: "` + Print(v) + `"`
	case k == Bool:
		way = "write true or false without quotes (a quoted \"false\" is true to a template)"
	}
	c.Refuse(guard.InvalidValue, fld, v, "%s is %s where %s belongs; %s", fld, Describe(v), k, way)
}

// TextAt reads the string at key of m as the charts' values schemas take
// one: def when the key is absent, "" when it is null (Helm deletes the
// default with it), else the string. Anything but a string is refused
// (RefuseType, InvalidValue at fld) and read as "". For example TextAt of
// {"storageClass": "fast"} at storageClass is "fast", of {} the default,
// of {"storageClass": null} "", and of {"storageClass": 5} "", refused.
func TextAt(c *findings.Collector, m map[string]any, key, def string, fld *field.Path) string {
	raw, present := m[key]
	if !present {
		return def
	}
	return TextOf(c, raw, fld)
}

// TextOf reads v as the charts' values schemas take a string: "" when it
// is null, else the string. Anything but a string is refused (RefuseType,
// InvalidValue at fld) and read as "".
func TextOf(c *findings.Collector, v any, fld *field.Path) string {
	switch s, ok := v.(string); {
	case v == nil:
		return ""
	case ok:
		return s
	}
	RefuseType(c, v, Text, fld)
	return ""
}

// Keys are the keys a chart defines at one place of its values. Build
// them once, at a package's initialization, with NewKeys.
type Keys struct{ names []string }

// injected are the values Cozystack injects beside a chart's own (see
// WarnUnknown); any other key that starts with "_" is skipped too.
var injected = []string{"_namespace", "_cluster"}

// NewKeys is the keys names. Each must be given once and none may start
// with "_" (which marks the values Cozystack injects): either is a mistake
// in the program, and NewKeys panics on it, as regexp.MustCompile does on
// a bad pattern.
func NewKeys(names ...string) Keys {
	for i, n := range names {
		switch {
		case strings.HasPrefix(n, "_"):
			panic(fmt.Sprintf("chartvalues.NewKeys: %q starts with \"_\", which marks the values Cozystack injects", n))
		case slices.Contains(names[:i], n):
			panic(fmt.Sprintf("chartvalues.NewKeys: %q is named twice", n))
		}
	}
	return Keys{names: slices.Clone(names)}
}

// Names are the keys, in the order NewKeys was given them.
func (k Keys) Names() []string { return slices.Clone(k.names) }

// WarnUnknown warns UnknownField at each key of m that known does not
// hold, naming the nearest known key: a misspelled key is dropped by the
// chart in silence (osimage is not osImage, and the pool would import over
// HTTP). Keys that start with "_" are the values Cozystack injects
// (_namespace, _cluster) and are never unknown. The warnings come in key
// order.
func WarnUnknown(c *findings.Collector, m map[string]any, known Keys, fld *field.Path) {
	if len(m) <= len(known.names)+len(injected) {
		// Most maps hold only known keys: when the known and injected keys
		// m holds are as many as its keys (each named once), every key of
		// m is one of them, which as many lookups say for less than
		// iterating m.
		held := 0
		for _, names := range [2][]string{known.names, injected} {
			for _, k := range names {
				if _, ok := m[k]; ok {
					held++
				}
			}
		}
		if held == len(m) {
			return
		}
	}
	var unknown []string
	for k := range m {
		if !strings.HasPrefix(k, "_") && !slices.Contains(known.names, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		near := Nearest(k, known.names)
		c.Warn(guard.UnknownField, fld.Child(k),
			"the chart defines no field %q here, so it has no effect; did you mean %q?", k, near)
	}
}

// Nearest is the known name closest to name: a case-blind match first
// (schematicId is schematicID), else the fewest edits, the first in known
// on a tie. For example Nearest("storageClas", ["diskSize",
// "storageClass"]) is "storageClass". Only the first nearestRunes runes of
// name are compared, so that a key of megabytes costs what a misspelling
// does: no known name is that long, and a suggestion for such a key is a
// courtesy, not a finding.
func Nearest(name string, known []string) string {
	best, bestDist := "", -1
	lower := strings.ToLower(prefixRunes(name, nearestRunes))
	for _, k := range known {
		d := distance(lower, strings.ToLower(k))
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// nearestRunes bounds the runes of a name Nearest compares: four times the
// longest name a chart defines.
const nearestRunes = 128

// prefixRunes is s cut after its first n runes.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// distance is the Levenshtein distance of a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
