// Package hook joins package state's Snapshot to the index package
// stateindex builds, without an import cycle and without an exported
// accessor on Snapshot: state sets Index, stateindex sets Build.
package hook

// Build indexes a *state.State, returning a *stateindex.Index. Package
// stateindex sets it when it is initialised.
var Build func(src any) any

// Index returns the index a *state.Snapshot holds, building it with Build on
// first use. Package state sets it when it is initialised.
var Index func(snapshot any) any
