package chartvalues

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Map returns v as a map[string]any: Helm's own, or any other map with
// string keys a Go caller built. It reports false for anything else.
func Map(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = plain(it.Value())
	}
	return out, true
}

// plain is v as a value a template sees: a nil map, slice or pointer of any
// Go type is null, as its JSON is.
func plain(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
	}
	return v.Interface()
}

// List returns v as a []any: Helm's own, or any other slice or array a Go
// caller built ([]string). It reports false for anything else (a []byte is
// a string to a template, not a list).
func List(v any) ([]any, bool) {
	if l, ok := v.([]any); ok {
		return l, true
	}
	rv := reflect.ValueOf(v)
	if (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) || rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = plain(rv.Index(i))
	}
	return out, true
}

// Empty is what Helm's default and a template's if, with and and treat as
// unset (sprig's empty, which its default calls): nil, false, a zero
// number (0.0 and -0.0 alike), "", and an empty list or map. For
// example Empty(0.0) and Empty("") are true; Empty("0") and Empty(true)
// are false.
func Empty(v any) bool {
	if v == nil {
		return true
	}
	switch x := v.(type) {
	case string:
		return x == ""
	case bool:
		return !x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return rv.IsNil()
	}
	return false
}

// Print is a scalar as a template prints it, and as quote quotes it (sprig's
// strval, then %q), once Flux has handed it to Helm: a string as itself, a
// boolean as true or
// false, and a number of any Go type as the float64 it becomes in Flux's
// JSON, as Go's fmt prints a float64 (the shortest form, in exponent form
// from 1e+06): 21474836480 is "2.147483648e+10", 1000000 is "1e+06", 20 is
// "20". nil prints "" (Helm removes "<no value>" from what it renders).
func Print(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	if f, ok := Float(v); ok {
		return fmt.Sprint(f)
	}
	return fmt.Sprint(v)
}

// Float is v's number as Flux hands it to Helm: the float64 its JSON
// decodes to (an int64 above 2^53 rounds, a float32 keeps the digits its
// JSON writes). It reports false for anything but a finite number.
func Float(v any) (float64, bool) {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil && !math.IsInf(f, 0)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	case reflect.Float32:
		f, err := strconv.ParseFloat(strconv.FormatFloat(rv.Float(), 'g', -1, 32), 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case reflect.Float64:
		f := rv.Float()
		return f, !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return 0, false
}

// IsScalar reports whether v is a boolean or a number.
func IsScalar(v any) bool {
	switch v.(type) {
	case bool, json.Number:
		return true
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// Decimal is v's number written in decimal, so that resource.ParseQuantity
// reads it as Kubernetes reads an int-or-string quantity. It reports false
// for anything but a finite number.
func Decimal(v any) (string, bool) {
	if n, ok := v.(json.Number); ok {
		if _, err := n.Float64(); err != nil {
			return "", false
		}
		return n.String(), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", false
		}
		bits := 64
		if rv.Kind() == reflect.Float32 {
			bits = 32
		}
		return strconv.FormatFloat(f, 'f', -1, bits), true
	}
	return "", false
}

// Integer is v as an int64 when v is a whole number that fits one: YAML's 3
// decodes as float64 3, which is a count; 2.5 is not.
func Integer(v any) (int64, bool) {
	s, ok := Decimal(v)
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// Describe names a value's type as YAML calls it, for messages: `the string
// "20Gi"`, "the number 20", "a map".
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	}
	if d, ok := Decimal(v); ok {
		return "the number " + d
	}
	if _, ok := Map(v); ok {
		return "a map"
	}
	if _, ok := List(v); ok {
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}
