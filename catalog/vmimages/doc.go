// Package vmimages is the image catalog of Cozystack's virtual machines:
// the vm-default-images system package, which imports one golden
// DataVolume per image into cozy-public, and which every vm-disk whose
// source is image clones.
//
// Decode reads the package's values as its chart does: per entry of
// images[], a DataVolume vm-default-images-<name> in cozy-public importing
// url over HTTP, with storage (default 5Gi) on the entry's storageClass,
// else the global storageClass (default replicated), else the cluster
// default, annotated to bind at once and to use CDI's populators. Render
// turns the catalog into those DataVolumes and checks that CDI can render
// each (its class exists, its StorageProfile has access modes, a default
// class exists for an entry that names none). Consumers lists what clones
// an image, a VMDisk's vm-disk HelmRelease included before its DataVolume
// exists; Prune says which goldens no entry manages any more and which of
// those nothing clones.
//
// # Rules
//
//   - All refusals come together, each at its values path: InvalidValue
//     for a value the chart cannot read or a required one it fails on
//     (images[i].name, images[i].url), InvalidQuantity for a storage that
//     is no positive quantity, DuplicateCatalogEntry at the later of two
//     entries of one name, StorageClassNotFound, DiskUnrenderable and
//     DefaultStorageClassUnresolvable at images[i].storageClass (or the
//     global storageClass the entry inherits).
//   - An absent images list is the chart's shipped list, which this
//     package does not carry: the catalog is then unknown
//     (Catalog.Known), and the goldens in the cluster are what a plan
//     reads. An explicit empty list means none.
//   - Unknown is neither absent nor present: what was not observed is a
//     StateUnverified warning naming the kind, and a prune whose consumer
//     kinds (those that may clone an image's golden: PVCs, DataVolumes,
//     VirtualMachines, DataSources, vm-disk HelmReleases; never a worker
//     pool or its KubevirtMachineTemplate) were not all observed in every
//     namespace reports nothing safe to delete.
//
// Everything here is pure: it reads a state.Snapshot, never the cluster,
// and never deletes anything.
package vmimages
