// Package vmdisk plans a Cozystack VM disk: the DataVolume the vm-disk
// chart creates for a VMDisk (apps.cozystack.io/v1alpha1), and whether CDI
// will finish it as a clone at the storage layer.
//
// A VMDisk's disk is one DataVolume, vm-disk-<name>, in the tenant's
// namespace. Its source decides what CDI does: source.image.name clones
// the golden vm-default-images-<name> in cozy-public (package
// catalog/vmimages), source.disk.name clones vm-disk-<name> of the same
// namespace, source.http imports over HTTP, upload waits for an upload
// (bound at once), and none is a blank disk. storage is the request
// (default 5Gi), storageClass the class (default replicated; "" the
// cluster default); exactly one source.
//
// Decode reads a VMDisk, or the vm-disk HelmRelease that serves it, as the
// chart reads its values; Plan renders the DataVolume and, for a clone,
// runs the clone guards. A clone on another class than its source's is
// the disk that stays unbound for ever with no error shown: CDI attempts a
// cross-class CSI clone that a WaitForFirstConsumer class of LINSTOR never
// binds, or copies the image over the pod network between two drivers.
// Plan refuses it at spec.storageClass, naming the class the source lives
// on, so the way out is one edit.
//
// # Refusals
//
// Every refusal is at the VMDisk's field, all of them together:
// ConflictingImageSource (spec.source: more than one source),
// InvalidValue (a value the values schema refuses, a name or url the
// chart requires, a source key the chart does not know, a disk that
// clones itself, a name whose release Helm refuses), InvalidQuantity
// (spec.storage: no positive quantity, or none written at all),
// GoldenNotInCatalog and GoldenImportFailed (spec.source.image.name),
// DefaultStorageClassUnresolvable, StorageClassNotFound, DiskUnrenderable,
// StorageClassMismatch and HostAssistedClone (spec.storageClass),
// DiskUnrenderable (spec.storage, under 1MiB) and DiskSmallerThanGolden
// (spec.storage). Warnings: GoldenPending, GoldenImportStalled,
// NodeLocalStorageClass, UnknownField, StateUnverified (a kind that was
// not observed, naming it).
//
// # Only a create
//
// The chart reads its DataVolume back and keeps an existing one's spec as
// it is, so only a create is planned: when vm-disk-<name> exists, the plan
// says so and carries the live DataVolume, refusing only what the values
// schema refuses on every apply.
//
// # The clone guards
//
// The clone guards are the library's, one implementation for worker
// disks, VM disks and any DataVolume (package plan/clone): what CDI
// v1.64.0 does with a DataVolume whose source is a PVC. A VM disk gets
// every one of them: CDI's default class, the class existing and CDI
// rendering the PVC, the source's presence and import, the class against
// the source's (its consequence from the CSI drivers and CDI's copy
// causes), each proven cause of a host-assisted copy (HostAssistedClone),
// the size CDI's clone fails for (DiskSmallerThanGolden at spec.storage:
// the chart's default 5Gi from a 20Gi image is refused), and a class
// that binds per node (NodeLocalStorageClass).
package vmdisk
