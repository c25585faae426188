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
//
// # Helm's functions
//
// What the charts' templates and Helm do to a value on the paths the
// library renders, and where the library does the same:
//   - Flux decodes the values with sigs.k8s.io/yaml: every number a
//     float64 (Float; an int64 above 2^53 rounds as it does).
//   - Helm's coalescing with the chart's values.yaml: an absent key takes
//     the default, a null deletes the key and its default, maps merge key
//     by key, a null inside a map the defaults do not describe survives
//     (the decoders: plan's decodeSpec and decodeTalos, computeplane's
//     forwardMap).
//   - values.schema.json, before anything renders: the type of each value
//     (Kind.Accepts, RefuseType: InvalidValue) and the quantity pattern
//     (QuantityPattern, IsQuantity: InvalidQuantity).
//   - sprig's default: the default for what empty calls unset, nil, false,
//     a zero number, "" and an empty list or map (Empty).
//   - sprig's quote: Go's %q of strval, a number through %v of its float64
//     (Print for the text; adapters/helm's DiskText quotes it).
//   - sprig's trimSuffix "/": one trailing "/" off the Image Factory URL and
//     the installer repository (naming.ImageURL, naming.InstallerImage).
//   - text/template's with and and: the truth of a value (Empty): an empty
//     class writes no storageClassName line; resources.cpu 0 or "" is not
//     set.
//   - fail: the release fails; the planner refuses at the field.
package chartvalues
