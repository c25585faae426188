// Package invariants holds the library's invariant suite: one rapid.Check
// per rule that must hold for every input, over the generators of
// plan/plantest, and fuzz targets for the parsers of outside input that the
// packages' own fuzz targets leave. It has no code of its own.
//
// Each property states its rule in its doc comment; README.md lists them
// with a one-line change to the planner that makes each fail, and says how
// to run them, the fuzz targets and the mutation testing. gaps_test.go
// names where the planner departs from its inputs' rules today, which the
// properties excuse and nothing more.
package invariants
