// Package catalog is the opt-in catalog of golden Talos worker images: one
// golden DataVolume per (schematicID, version) in cozy-public, imported once
// over HTTP and cloned at the storage layer by every worker of every pool
// that opts in with osImage.builtin.
//
// Values holds the catalog's values with the chart's defaults; Compile
// validates them once into a Catalog that the planner (package plan) looks
// flavors up in. Render turns an enabled catalog into its golden
// DataVolumes and guards the goldens that already exist; ReadBack builds
// the values back from the goldens in a cluster, for callers that see the
// cluster but not the values. Consumers, Unmanaged and Prune answer the
// questions that follow: what clones a golden, which goldens no entry
// manages any more, and which of those nothing clones. Everything here is pure: it reads a state.Snapshot, never the
// cluster, and never deletes anything.
//
// # Rules
//
//   - The catalog is disabled unless enabled, and validated even when
//     disabled. Absent images mean the one default flavor, which is the pool
//     chart's default Talos flavor on the pool chart's default class; an
//     explicit empty list means none. An entry's empty imageFactoryURL,
//     storage or storageClass falls back to the catalog's.
//   - Refusals, all reported together: InvalidSchematicID, InvalidVersion,
//     InvalidImageFactoryURL and InvalidQuantity at the entry's field (or the
//     global one an entry inherits), DuplicateCatalogEntry at the later of
//     two entries of one flavor, and CatalogEntryImmutable, one per changed
//     field (images[i].imageFactoryURL, .storage, .storageClass), when an
//     entry's golden exists with other values. CDI refuses any change to a
//     DataVolume's spec, and deleting a golden breaks every pool that clones
//     it, so the way out is a new (schematicID, version) entry, the pools
//     moved onto it, then the old one retired.
//   - An edit is a difference CDI would see: sizes compare as quantities
//     (6Gi is 6144Mi), URLs canonically, classes as they bind on both sides
//     (an empty class is the one the golden's PVC is bound on, else the
//     cluster default), so neither moving the cluster default nor naming the
//     class a classless golden is bound on is an edit. A golden known by its
//     PVC alone (CDI garbage-collects completed DataVolumes) shows no
//     comparable size, since CDI may inflate a PVC's request, and shows its
//     URL only through CDI's import-endpoint annotation.
//   - When an entry equals its live golden, the render reproduces the live
//     spec as it is, so applying it patches nothing; for a PVC-only golden it
//     takes the PVC's size and class.
//   - Unknown is neither absent nor present: a golden whose DataVolumes or
//     PVCs were not observed renders from its entry with a StateUnverified
//     warning naming the kind, and a prune whose disks were not all observed
//     reports nothing safe to delete.
//   - Goldens carry helm.sh/resource-policy: keep, so dropping an entry
//     leaves its golden unmanaged rather than deleting it. A consumer is an
//     object, in any namespace, that clones a golden or will: a DataVolume or PVC found by the disk annotation or by its
//     source (a DataVolume's source.pvc or sourceRef, a PVC's dataSource or
//     dataSourceRef); a KubevirtMachineTemplate or VirtualMachine whose
//     dataVolumeTemplates do (a pool scaled to zero has a template and no
//     disk); a DataSource that points at it, and, through one, a sourceRef,
//     resolved as CDI v1.64.0 resolves it; a pool whose next render clones
//     it (a KubernetesNodes, a HelmRelease of the kubernetes-nodes chart),
//     read by a PoolReader: plan.PoolGolden reads the golden a plan of the
//     pool clones, so that no golden a plan clones is safe to delete. A disk
//     is one consumer, however it is known; each says its kind, namespace,
//     name and pool.
//   - Prune reports a golden safe to delete only when every consumer kind
//     was observed in every namespace, every pool's golden could be told,
//     and none clones it; a kind that was not makes nothing safe to delete, with a StateUnverified warning that
//     names it. Radius counts the pools and templates that still point at a
//     golden (its blast radius), and says when that count is a lower bound.
package catalog
