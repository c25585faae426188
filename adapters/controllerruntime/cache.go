package controllerruntime

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/slim"
)

// CacheOptions are the options of a manager's cache that plans from it:
// every object the cache holds keeps only what a plan, a catalog render or
// a consumer count reads of it, so that the informers of a cluster with
// 100,000 worker disks hold their names, classes, sizes and phases rather
// than whole objects. From every object it drops managedFields and the
// last-applied-configuration annotation. From the kinds the planner reads
// it drops the uid and every annotation and label it does not read. PVCs
// keep their spec and, of their status, phase and capacity; DataVolumes
// their spec and, of their status, phase, restart count, claim name and,
// until they have succeeded, their Running condition's type, status and
// reason; PersistentVolumes their claim
// reference, CSI driver, class, capacity, volume mode and access modes,
// and their phase, but a volume bound to a claim outside the goldens'
// namespace (most volumes of a cluster) only its name, the claim's
// namespace and name and its CSI driver. Objects read as unstructured (pools, HelmReleases)
// keep everything else. The objects share equal maps, lists and strings:
// read them, never write them (a manager's client reads copies).
//
// Set other fields of the returned options as needed, and keep
// DefaultTransform, or call it from your own:
//
//	opts := controllerruntime.CacheOptions()
//	opts.Scheme = scheme
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Cache: opts})
func CacheOptions() cache.Options {
	return cache.Options{DefaultTransform: slim.Transform}
}
