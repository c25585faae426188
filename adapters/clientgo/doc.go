// Package clientgo reads cluster state for the planner through client-go: a
// typed clientset for StorageClasses, PersistentVolumeClaims, CSIDrivers and
// PersistentVolumes, and a dynamic client for the custom resources (CDI's
// cdi.kubevirt.io/v1beta1 kinds, VolumeSnapshotClasses, KubeVirt's
// VirtualMachines, KubevirtMachineTemplates), converted to their API types,
// and the pools (KubernetesNodes, Flux's HelmReleases), kept unstructured.
//
// # What it reads
//
// Reader.Read reads exactly a state.Request, which the planner gives
// (plan.Needs for one pool, plan.NeedsAll for many): for one pool, one list
// per cluster-scoped kind, the pool namespace's DataVolumes and PVCs, and the
// golden's DataVolume, PVC and volume by name, 11 requests; for what clones a golden
// (catalog.ConsumersNeeds), one cluster-wide list per consumer kind.
// Requests stay bounded
// for any number of pools: once a namespaced kind would take more than
// Reader.Limit requests (8), every namespaced kind is listed cluster-wide
// instead, so a fleet costs one LIST per kind. A cluster-wide list answers
// the gets of its kind. A list is asked first as a streaming list (a watch
// that sends the objects there are, then a bookmark), which the API server
// answers from its watch cache; a server that does not stream lists, a
// reader that may list but not watch, and any failure of the stream read
// the kind as pages (500 objects a page) instead. Reads of different kinds
// are in flight together, four at a time. The goldens' volumes are read by
// name, once their claims are, even past Reader.Limit when the claims were
// listed cluster-wide and the volumes are no more than the pages a list of
// every bound claim's volume would take: a plan of a few goldens does not
// list the volumes of 100,000 disks.
//
// # Unknown, absent, failed
//
// The State records what was read, so that what was not stays unknown:
//
//   - Forbidden leaves the kind unknown (never empty): the planner warns
//     StateUnverified instead of refusing or passing on a guess. A
//     cluster-wide list that is Forbidden is not retried namespace by
//     namespace (that would make the number of requests grow with the
//     fleet): a reader with only namespaced rights plans a few pools at a
//     time, or raises Limit.
//   - A kind the server does not serve (a 404 on its list, the router's 404
//     on a get: CDI not installed, its CRD being installed, an aggregated
//     API down) is unknown too. A 404 proves no object absent, and a
//     refusal must not rest on it; nothing degrades for it either, since a
//     worker disk is a DataVolume that a cluster without CDI cannot accept.
//   - A golden's NotFound on a get is absent: recorded in State.Objects.
//   - Anything else (timeouts, 5xx, connection refused, bad credentials, a
//     cancelled context) is returned as an error, never a refusal
//     (errors.Is finds its cause): a controller requeues and reads again.
package clientgo
