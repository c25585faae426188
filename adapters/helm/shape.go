package helm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// kind is the type a chart expects of a value.
type kind int

const (
	// text is a string.
	text kind = iota
	// boolean is true or false.
	boolean
	// object is a map; its known keys are in shape.fields.
	object
	// objects is a list of maps.
	objects
)

func (k kind) String() string {
	switch k {
	case text:
		return "a string"
	case boolean:
		return "a boolean"
	case object:
		return "a map"
	case objects:
		return "a list of maps"
	}
	return "kind " + strconv.Itoa(int(k))
}

// shape is what a chart reads of a value: its kind and, for maps, the keys
// that matter here. Keys a shape does not name are other values of the
// chart and are left alone.
type shape struct {
	kind   kind
	fields map[string]shape
	// chartDefault marks a map the chart's values.yaml fills: a null there
	// deletes the defaults too, leaving every text field empty.
	chartDefault bool
}

// null is what a chart's template sees for a key set to null. Helm deletes
// the key from the merged values, defaults included: a text renders empty,
// a boolean false, a list has no items, a map the chart fills has its
// fields empty, and any other map is absent.
func null(s shape) (any, bool) {
	switch s.kind {
	case text:
		return "", true
	case boolean:
		return false, true
	case objects:
		return []any{}, true
	}
	if !s.chartDefault {
		return nil, false
	}
	m := make(map[string]any, len(s.fields))
	for k, f := range s.fields {
		if v, ok := null(f); ok {
			m[k] = v
		}
	}
	return m, true
}

// read copies out of v what s names, with every type checked, so that the
// copy decodes into the planner's types without error. A null value, or a
// key that is absent, is not set (Helm drops null values, and the chart's
// default applies). Each value of the wrong type is refused InvalidValue at
// its path; read reports whether there was none.
func read(v any, s shape, fld *field.Path, c *guard.Collector) (any, bool) {
	switch s.kind {
	case text:
		if str, ok := v.(string); ok {
			return str, true
		}
		if isScalar(v) {
			// A chart quotes what it is given: diskSize: 20 renders
			// "20", as Helm prints the number it decoded.
			return fmt.Sprint(v), true
		}
	case boolean:
		if b, ok := v.(bool); ok {
			return b, true
		}
	case object:
		if m, ok := asMap(v); ok {
			return readMap(m, s.fields, fld, c)
		}
	case objects:
		if list, ok := asList(v); ok {
			return readList(list, shape{kind: object, fields: s.fields}, fld, c)
		}
	}
	refuseType(v, s.kind, fld, c)
	return nil, false
}

func readMap(m map[string]any, fields map[string]shape, fld *field.Path, c *guard.Collector) (map[string]any, bool) {
	out := make(map[string]any, len(fields))
	valid := true
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, present := m[k]
		if !present {
			continue
		}
		if v == nil {
			if n, ok := null(fields[k]); ok {
				out[k] = n
			}
			continue
		}
		got, ok := read(v, fields[k], fld.Child(k), c)
		if !ok {
			valid = false
			continue
		}
		out[k] = got
	}
	return out, valid
}

func readList(list []any, item shape, fld *field.Path, c *guard.Collector) ([]any, bool) {
	out := make([]any, 0, len(list))
	valid := true
	for i, v := range list {
		// A null entry is not skipped: it would shift the indexes that
		// every later refusal names.
		got, ok := read(v, item, fld.Index(i), c)
		if !ok {
			valid = false
			continue
		}
		out = append(out, got)
	}
	return out, valid
}

// asMap accepts what Helm holds (map[string]any) and any other map with
// string keys a Go caller built.
func asMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = it.Value().Interface()
	}
	return out, true
}

// asList accepts what Helm holds ([]any) and any other slice a Go caller
// built.
func asList(v any) ([]any, bool) {
	if l, ok := v.([]any); ok {
		return l, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

func refuseType(v any, want kind, fld *field.Path, c *guard.Collector) {
	way := "write " + want.String()
	switch {
	case want == text && isScalar(v):
		way = "quote it, as in " + fld.String() + `: "` + fmt.Sprint(v) + `"`
	case want == boolean:
		way = "write true or false without quotes (a quoted \"false\" is true to a template)"
	}
	c.Refuse(guard.InvalidValue, fld, v, "%s is %s where %s belongs; %s", fld, describe(v), want, way)
}

func isScalar(v any) bool {
	switch v.(type) {
	case bool, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		return true
	}
	return false
}

// describe names a decoded value's type as YAML calls it.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	}
	if isScalar(v) {
		return fmt.Sprintf("the number %v", v)
	}
	if _, ok := asMap(v); ok {
		return "a map"
	}
	if _, ok := asList(v); ok {
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}
