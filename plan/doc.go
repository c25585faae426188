// Package plan decides each worker pool's disk-system DataVolume.
//
// Every worker VM of a tenant Kubernetes cluster boots from a disk that CDI
// fills. Without the catalog, each worker imports the same Talos image over
// HTTP from the Image Factory; a pool that sets osImage.builtin instead gets
// a disk that CDI clones at the storage layer from the catalog's golden in
// cozy-public. Plan takes a pool, a compiled catalog and an indexed snapshot
// of the cluster, makes no calls, and returns the disk, or typed refusals
// for every plan that would silently degrade.
//
// # Sources
//
//   - osImage absent, {} or factory: the HTTP import, carrying exactly what
//     the pre-feature chart rendered (annotation usePopulator "false", the
//     factory URL, the class left out when empty). It gains no refusal the
//     chart did not have, beyond the factory override's own fields.
//   - osImage.builtin: a clone of talos-worker-<schematicID>-<version> in
//     cozy-public, with the class always written (the one the guards
//     compared) and the golden and pool annotations that let a delete ask
//     what still clones a golden.
//
// # Guards
//
// A diskSize the kubernetes-nodes chart's values schema refuses fails the
// release before anything renders (Helm validates the schema on install,
// upgrade and template), so it is refused InvalidValue on both paths: ""
// in the values, a fraction, a boolean, a string off the schema's quantity
// pattern ("20 Gi"), and a text past 64 characters, which is never parsed.
// In a PoolSpec built in Go, DiskSize "" is unset, 20Gi.
//
// Refusals (guard reasons): ConflictingImageSource, InvalidSchematicID,
// InvalidVersion, InvalidImageFactoryURL, InvalidQuantity, InvalidValue,
// InvalidPoolName, GoldenNotInCatalog, GoldenImportFailed,
// StorageClassMismatch, DefaultStorageClassUnresolvable,
// FrozenStorageClassConflict, StorageClassNotFound, DiskUnrenderable,
// DiskSmallerThanGolden, HostAssistedClone. The clone guards predict CDI
// v1.64.0 from its own code (packages internal/cdi and internal/cloneguard
// name the file and function each mirrors); they are the ones package
// plan/clone runs on any DataVolume that clones a PVC, and the pool adds
// what only it has (its catalog entry, flavor, name, the class its disks
// froze). All independent refusals come together:
// Result.Refusals, which Plan also returns as its error.
//
// Warnings: GoldenPending, GoldenImportStalled, GoldenUnavailable (a pool that
// has already cloned is never refused for its golden going missing, being
// dropped or failing), StateUnverified (once per kind a guard needed but the
// snapshot did not observe, the kind in its Kind field), NodeLocalStorageClass,
// UnknownField; and on the HTTP path, which gains no refusal the pre-feature
// chart did not have, InvalidQuantity (a diskSize that is no positive
// quantity, "0" or "-1Gi", rendered as the chart rendered it),
// InvalidSchematicID, InvalidVersion,
// InvalidImageFactoryURL (talos.* values rendered as given),
// StorageClassNotFound and DiskUnrenderable.
//
// # Unknown is neither absent nor present
//
// A refusal that rests on something being absent (a pool with no disks yet,
// a cluster without a default class, a missing CSIDriver) needs that kind
// observed, and otherwise becomes a StateUnverified warning; a waiver that
// rests on something being present (a pool that has already cloned) needs
// it observed too.
//
// # Blast radius
//
// A pool that warns GoldenUnavailable runs on a golden that is gone, failed
// or unmanaged: AddBlastRadius says how many pools and
// KubevirtMachineTemplates in the whole cluster still point at it
// (catalog.Radius), from a catalog.ConsumerIndex of what catalog.ConsumersNeeds
// reads. It is information, never a refusal, and never a plan's own need:
// Needs reads only what decides the pool's disk (state.PlanKinds), so an
// unread consumer kind warns nothing of a plan, and a radius over one says
// its counts are a lower bound.
//
// # What if
//
// Package plan/whatif plans every pool twice, before and after a change (a
// Cozystack upgrade's new chart defaults, another catalog), and says which
// pools roll, the steps in order and the bytes the rollout moves.
//
// # Use
//
// Build the catalog once with catalog.Compile and the snapshot once with
// state.NewSnapshot, then call Plan per pool or PlanAll for a fleet; both are
// safe for concurrent use, and PlanAll plans a fleet of more than a hundred
// or so pools on every processor (GOMAXPROCS), its results in the pools'
// order. Needs says what a pool's plan reads, so an adapter
// reads exactly that; TemplateNeeds what reading the pools' live
// KubevirtMachineTemplates takes (a pool's newest template), for a caller
// that compares a plan with what the workers boot from today.
// A renderer that writes the chart's text calls adapters/helm's PlanEntry
// (PlanEntries for a fleet) in place of Plan: the same guards, warnings and
// refusals, and the disk-system entry's text, without building the
// DataVolume object.
package plan
