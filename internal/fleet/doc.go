// Package fleet builds large, realistic clusters and pool fleets for the
// benchmarks: goldens in cozy-public, tenants whose pools have already
// cloned them, StorageClasses with one default, CDI's profiles and drivers.
//
// Everything is deterministic, so figures compare between runs: Large is
// the fleet of the performance figures (1,000 goldens, 50 classes, 100,000
// PVCs in 1,000 namespaces), Pools spreads builtin pools over it with an
// empty class every third pool, so that frozen and default resolutions are
// measured too, and ListYAML prints a state as kubectl get -o yaml does.
package fleet
