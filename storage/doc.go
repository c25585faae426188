// Package storage says which StorageClass a disk binds on and where that
// class came from (Resolution), as the planner resolved it the way CDI
// will for a DataVolume. A worker disk is a CSI clone of its golden only
// when both are on the same class; otherwise CDI copies the image over the
// pod network, the transfer the feature exists to remove. So the planner
// compares resolved classes, never the values as written, and writes the
// class it compared onto the disk.
//
// # Rules
//
//   - An explicit class always wins (Explicit).
//   - An empty class is frozen from the disks that already exist (Frozen):
//     moving the cluster default never fails a pool whose disks are bound,
//     and disks on more than one class are refused, never resolved by list
//     order.
//   - Otherwise the cluster default (Default), as CDI v1.64.0 picks it for a
//     DataVolume: a class annotated VirtDefaultAnnotation "true", else
//     DefaultAnnotation "true". Within a tier the newest by creation time
//     wins, then the first by name. Only the exact value "true" counts, and
//     CDI never reads BetaDefaultAnnotation: a cluster whose only default
//     carries it has none.
//   - StorageClasses that were not observed leave the default unknown, never
//     "no default".
//   - Cluster is the HTTP path's empty class, left to the cluster at apply
//     time.
package storage
