// Package storageclass resolves the StorageClass a disk binds on, as CDI
// will for a DataVolume, into a storage.Resolution: the class and where it
// came from. The planner compares resolved classes, never the values as
// written, and writes the class it compared onto the disk.
//
// # Rules
//
//   - An explicit class always wins (storage.Explicit).
//   - An empty class is frozen from the disks that already exist
//     (storage.Frozen): moving the cluster default never fails a pool whose
//     disks are bound. Disks on more than one class are a *ConflictError,
//     never resolved by list order.
//   - Otherwise the cluster default (storage.Default), as CDI v1.64.0 picks
//     it for a DataVolume (DefaultClass): a class annotated
//     storageclass.kubevirt.io/is-default-virt-class "true", else
//     storageclass.kubernetes.io/is-default-class "true". Within a tier the
//     newest by creation time wins, then the first by name. Only the exact
//     value "true" counts, and CDI never reads the beta annotation
//     storageclass.beta.kubernetes.io/is-default-class: a cluster whose only
//     default carries it has none.
//   - KubernetesDefaultClass is the default of the GA annotation alone,
//     which CDI falls back to where it looks a PVC's class up without the
//     virt tier (a classless PVC's StorageProfile).
//   - StorageClasses that were not observed give ErrDefaultUnknown, never "no
//     default"; observed classes without a default give ErrNoDefault.
package storageclass
