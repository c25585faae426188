// Package invariants holds the library's invariant suite: one rapid.Check
// per rule that must hold for every input, over the generators of
// plan/plantest, and the fuzz targets of the parsers of outside input that
// the packages' own tests do not fuzz. It has no code of its own; README.md
// says how to run it, the fuzz targets and the mutation testing.
//
// Each property states its rule in its doc comment, and the note of the
// change that introduced it names, per property, the one-line change to the
// planner that makes it fail.
package invariants
