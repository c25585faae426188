// Package state holds what was observed of a cluster, for the planner to
// read without doing I/O. A State is the raw observation an adapter gathers
// (the kinds it read, the namespaces and objects it read them in, and the
// objects found); a Snapshot indexes it once so every lookup the planner
// makes is a map hit, and is shared read-only between goroutines; a Request
// says what a plan needs read, so adapters fetch exactly that. An importer
// builds a State (or has an adapter read one), calls NewSnapshot, and hands
// the Snapshot to the planner; the Snapshot's lookups are the planner's own.
//
// # Rules
//
//   - Each kind of AllKinds (the cluster's storage and CDI, and the
//     consumers of goldens: KubevirtMachineTemplate, VirtualMachine,
//     DataSource, and the pools, KubernetesNodes and HelmRelease, held
//     unstructured) is observed, possibly empty, or unknown. Unknown is
//     never absent nor present: the zero State knows
//     nothing, and objects of a kind or namespace that was not observed are
//     dropped from the Snapshot, so they can neither prove an absence nor
//     grant a waiver.
//   - Namespaces limits what the observed namespaced kinds (Namespaced)
//     cover (nil: every namespace; empty: none). Objects read by
//     name are covered, found or not, outside that scope.
//   - A disk is known by its DataVolume, its PVC, or both, merged by name.
//     Its class is its PVC's, or its DataVolume's (spec.storage, else
//     spec.pvc) when only the DataVolume is seen.
//   - A pool has already cloned a golden when, in the pool's namespace, a
//     DataVolume that succeeded or a bound PVC carries both the pool's and
//     the golden's annotation. Disks of another golden do not count: they
//     belong to a flavor the pool has left.
//   - The planner's guards read PlanKinds only; the consumer kinds serve
//     package catalog's consumers and a pool's live template: the newest
//     KubevirtMachineTemplate whose pool (package capk:
//     its instance template's cluster.x-k8s.io/deployment-name label, else
//     its disk's pool annotation) is the pool's CAPI name.
//   - The cluster default class is resolved once, as package storage says.
//     Several CDI resources (a broken cluster) resolve to the first by name.
//   - Request.Merge drops repeats, lets a cluster-wide list cover the
//     namespaced lists and the gets of its kind and a namespaced list the gets
//     in it, and sorts, so merging in any order gives the same reads.
//   - A pool's Request (plan.Needs) needs, of its namespace's DataVolumes
//     and PVCs, only the pool's disks; a reader with an index of their pool
//     annotation reads those alone. Merged with a request that needs the
//     namespace's disks whole, lists them cluster-wide, or gets one by
//     name, the namespace is read whole.
package state
