// Package clusterread reads a state.Request from an API server through any
// client: it decides the calls (Calls), makes them through a Source, sorts
// each error into "the kind is unknown", "the object is absent" or "the read
// failed", and records in the State exactly what was read, so that what was
// not read stays unknown.
package clusterread
