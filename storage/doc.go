// Package storage resolves the StorageClass a disk binds on, as CDI will for
// a DataVolume, and says where the class came from. A worker disk is a CSI
// clone of its golden only when both are on the same class; otherwise CDI
// copies the image over the pod network, the transfer the feature exists to
// remove. So the planner compares resolved classes, never the values as
// written, and writes the class it compared onto the disk.
//
// # Rules
//
//   - An explicit class always wins (Explicit).
//   - An empty class is frozen from the disks that already exist (Frozen):
//     moving the cluster default never fails a pool whose disks are bound.
//     Disks on more than one class are a *ConflictError, never resolved by
//     list order.
//   - Otherwise the cluster default (Default), as CDI v1.64.0 picks it for a
//     DataVolume (DefaultClass): a class annotated
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
//   - Cluster is the HTTP path's empty class, left to the cluster at apply
//     time.
package storage
