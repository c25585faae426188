// Package kinds maps the library's state kinds to their Kubernetes API
// types, and turns decoded objects into the typed slices of a state.State.
// Every adapter uses it, so that the same object read from a file, through
// client-go or through controller-runtime lands in the State the same way.
package kinds
