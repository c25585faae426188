// Package controller is an example of a controller-runtime controller that
// embeds the planner: it watches KubernetesNodes pools
// (apps.cozystack.io/v1alpha1, read as unstructured, their spec being the
// kubernetes-nodes chart's values), plans each pool's disk-system
// DataVolume from the manager's cache, and records the outcome on the pool
// as the condition DiskPlanned and as events. It changes no disk.
//
// # Embedding it
//
//   - Register CDI's types on the manager's scheme
//     (adapters/controllerruntime.AddToScheme) beside client-go's.
//   - Cache unstructured objects too (client.Options{Cache:
//     &client.CacheOptions{Unstructured: true}}): otherwise every read of a
//     pool is a request to the API server. The state a plan needs (PVCs,
//     PersistentVolumes, DataVolumes, StorageClasses, CSIDrivers,
//     StorageProfiles, the CDI resource, CDIConfigs,
//     VolumeSnapshotClasses) is typed and always served by the cache.
//     Make the cache with controllerruntime.CacheOptions(), which keeps of
//     each object only what a plan reads.
//   - Give it the catalog: the kubernetes-worker-image package's values
//     compiled (catalog.Compile), or, where only the cluster is known, the
//     catalog read back from the goldens (catalog.FromCluster).
//   - Call New(mgr, catalog).SetupWithManager(mgr), and grant the RBAC of
//     the +kubebuilder:rbac markers on Reconcile: get, list and watch of
//     the pools and of every kind above, update of the pools' status,
//     events, and SelfSubjectAccessReviews. A kind left out of the RBAC
//     is unknown to every plan (the pool warns StateUnverified naming it)
//     rather than a read that waits: the reader asks whether it may watch
//     a kind before its informer would wait on it.
//
// # Rules
//
//   - The condition DiskPlanned is True with reason Planned, or False with
//     the reason of the pool's first refusal; its message holds every
//     refusal, then every warning, one a line; its observedGeneration is
//     the spec it planned.
//   - Each refusal and each warning is a Warning event under its reason; a
//     planned pool also gets a Normal Planned event. Events are recorded
//     only when the condition changes, so a resync repeats nothing.
//   - Every Reconcile is bounded by 30 seconds. A read
//     of the cluster that fails (a timeout, a cache not synced) is
//     returned from Reconcile: the pool is requeued with backoff. A refusal
//     is an outcome, not an error: nothing is requeued for it.
//   - A pool is planned again when its spec changes, and every pool when a
//     StorageClass or a golden DataVolume (cozy-public) changes, since a
//     default moved or a golden imported changes plans of pools that did
//     not. Changes to a pool's own disks plan nothing again until the next
//     of those events or a resync.
package controller
