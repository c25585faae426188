// Package chartvalues reads chart values as Helm holds them: what a
// template sees of a value, what Helm's default treats as unset, how quote
// prints a number, and which type a value has where the chart expects
// another. The pool spec, catalog and ComputePlane decoders are built on it,
// so that every path that reads values reads them alike.
//
// Values arrive as decoded JSON or YAML (map[string]any, []any, float64 as
// Flux hands them to Helm), or as Go values a caller built (any map with
// string keys, any slice, any integer type): all are accepted where the
// chart takes one.
package chartvalues
