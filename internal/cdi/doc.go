// Package cdi states what CDI v1.64.0 (kubevirt/containerized-data-importer,
// the version Cozystack ships) does with a DataVolume of the storage API
// whose source is a golden's PVC: whether it gets a PVC at all, the request
// that PVC carries, and the CSI driver each side clones with. Each function
// names the CDI file and function it mirrors (paths under pkg/); the
// planner and the catalog build their refusals on it, so that both predict
// the same CDI.
//
// Everything here reads a state.Snapshot and reports what it could not
// read (Unobserved) rather than guess: unknown is neither absent nor
// present.
package cdi
