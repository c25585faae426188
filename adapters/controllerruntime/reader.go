package controllerruntime

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/compact"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/diskindex"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// Reader reads cluster state through a controller-runtime client.Reader.
// Give it the manager's cache (mgr.GetCache()), or its client
// (mgr.GetClient()), so that the cache serves every read: planning then
// makes no request to the API server at all. Over the cache itself, a
// pool's plan (plan.Needs) reads of its namespace only the pool's own
// disks, through an index of their pool annotation that the Reader adds to
// the cache's DataVolume and PVC informers, rather than the namespace's
// every one: an admission then costs the same whatever the number of other
// pools' disks beside it. Over a client it lists the namespace.
type Reader struct {
	Client client.Reader
	// Limit is the most reads one kind gets before a single cluster-wide
	// list replaces them; 0 means 8. It matters for an uncached reader
	// (mgr.GetAPIReader()); a cache answers either from memory.
	Limit int
	// Reviewer, when set, is asked (a SelfSubjectAccessReview through it)
	// whether this identity may list and watch a kind in every namespace
	// before the kind's first read, and again at most once a minute while
	// it may not. A cache would wait for a kind it may not watch until the
	// context ends; a kind refused here is unknown at once, as a Forbidden
	// read is. Set it to mgr.GetClient() when Client is the manager's
	// cache. A Get through a Client that has a method
	// ReadsByName(schema.GroupKind) bool reporting true for the kind (one
	// that gets it by name from the API server, past its cache) is asked
	// about get alone.
	Reviewer client.Client

	once   sync.Once
	access *access
}

// New returns a Reader over c.
func New(c client.Reader) *Reader { return &Reader{Client: c} }

// Read reads what req asks for and returns it as a State in which every
// kind it could not read (no permission, not served) is unknown. An error
// is a read that failed for a reason that is not a refusal (a timeout, a
// server error, a cache not started; errors.Is finds the cause): the
// reconcile should be requeued.
//
// Over a cache, the State's objects share their maps, slices and pointers
// with the cache's own (no object is deep-copied per read, which for a
// namespace of thousands of disks is most of an admission's time): plan
// from them, and DeepCopy an object before changing it.
func (r *Reader) Read(ctx context.Context, req state.Request) (*state.State, error) {
	var src clusterread.Source = source{r.Client}
	if r.Reviewer != nil {
		r.once.Do(func() {
			r.access = &access{reviewer: r.Reviewer, allowed: map[need]bool{}, asked: map[need]time.Time{}, now: time.Now}
			if b, ok := r.Client.(byNameReader); ok {
				r.access.byName = b.ReadsByName
			}
		})
		src = checked{source{r.Client}, r.access}
	}
	return clusterread.Read(ctx, src, req, r.Limit)
}

var _ state.Reader = (*Reader)(nil)

// byNameReader is a client that gets some kinds by name from the API
// server rather than from its cache (the adapters' PersistentVolumes): a
// Get of them needs the get verb, not list and watch.
type byNameReader interface {
	ReadsByName(schema.GroupKind) bool
}

type source struct{ c client.Reader }

var _ clusterread.Source = source{}

func (s source) List(ctx context.Context, k state.Kind, ns string, into *state.State) error {
	if idx, ok, err := s.store(ctx, k); ok || err != nil {
		if err != nil {
			return err
		}
		if ns == "" {
			return expand(k, idx.List(), into)
		}
		items, err := idx.ByIndex(toolscache.NamespaceIndex, ns)
		if err != nil {
			return err
		}
		return expand(k, items, into)
	}
	// The cache's objects themselves, not copies: a plan only reads them.
	opts := []client.ListOption{client.UnsafeDisableDeepCopy}
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	// No Limit: a cache ignores the continue token and would cut the list
	// short.
	switch k {
	case state.StorageClass:
		var l storagev1.StorageClassList
		return s.list(ctx, &l, opts, func() { into.StorageClasses = append(into.StorageClasses, l.Items...) })
	case state.PersistentVolumeClaim:
		var l corev1.PersistentVolumeClaimList
		return s.list(ctx, &l, opts, func() { into.PersistentVolumeClaims = append(into.PersistentVolumeClaims, l.Items...) })
	case state.DataVolume:
		var l cdiv1.DataVolumeList
		return s.list(ctx, &l, opts, func() { into.DataVolumes = append(into.DataVolumes, l.Items...) })
	case state.StorageProfile:
		var l cdiv1.StorageProfileList
		return s.list(ctx, &l, opts, func() { into.StorageProfiles = append(into.StorageProfiles, l.Items...) })
	case state.CDI:
		var l cdiv1.CDIList
		return s.list(ctx, &l, opts, func() { into.CDIs = append(into.CDIs, l.Items...) })
	case state.CSIDriver:
		var l storagev1.CSIDriverList
		return s.list(ctx, &l, opts, func() { into.CSIDrivers = append(into.CSIDrivers, l.Items...) })
	case state.VolumeSnapshotClass:
		var l snapshotv1.VolumeSnapshotClassList
		return s.list(ctx, &l, opts, func() { into.VolumeSnapshotClasses = append(into.VolumeSnapshotClasses, l.Items...) })
	case state.CDIConfig:
		var l cdiv1.CDIConfigList
		return s.list(ctx, &l, opts, func() { into.CDIConfigs = append(into.CDIConfigs, l.Items...) })
	case state.PersistentVolume:
		var l corev1.PersistentVolumeList
		return s.list(ctx, &l, opts, func() { into.PersistentVolumes = append(into.PersistentVolumes, l.Items...) })
	case state.KubevirtMachineTemplate:
		var l capk.KubevirtMachineTemplateList
		return s.list(ctx, &l, opts, func() { into.KubevirtMachineTemplates = append(into.KubevirtMachineTemplates, l.Items...) })
	case state.VirtualMachine:
		var l kubevirtv1.VirtualMachineList
		return s.list(ctx, &l, opts, func() { into.VirtualMachines = append(into.VirtualMachines, l.Items...) })
	case state.DataSource:
		var l cdiv1.DataSourceList
		return s.list(ctx, &l, opts, func() { into.DataSources = append(into.DataSources, l.Items...) })
	case state.KubernetesNodes, state.HelmRelease:
		// Read as unstructured: their schema is the pool chart's values.
		var l unstructured.UnstructuredList
		l.SetGroupVersionKind(kinds.Of(k).GVK)
		if err := s.list(ctx, &l, opts, func() {}); err != nil {
			return err
		}
		return appendItems(into, k, l.Items)
	}
	return fmt.Errorf("controllerruntime: %v is not a kind the planner reads", k)
}

func (s source) list(ctx context.Context, l client.ObjectList, opts []client.ListOption, keep func()) error {
	if err := s.c.List(ctx, l, opts...); err != nil {
		return schemeHint(err)
	}
	keep()
	return nil
}

// appendItems keeps unstructured objects of kind k as every reader does.
func appendItems(into *state.State, k state.Kind, items []unstructured.Unstructured) error {
	for i := range items {
		if err := kinds.AppendUnstructured(into, k, items[i].Object); err != nil {
			return err
		}
	}
	return nil
}

func (s source) Get(ctx context.Context, k state.Kind, ns, name string, into *state.State) error {
	key := client.ObjectKey{Namespace: ns, Name: name}
	if idx, ok, err := s.store(ctx, k); ok || err != nil {
		if err != nil {
			return err
		}
		item, found, err := idx.GetByKey(key.String())
		if err != nil {
			return err
		}
		if !found {
			return apierrors.NewNotFound(storeResources[k], name)
		}
		return expand(k, []any{item}, into)
	}
	switch k {
	case state.StorageClass:
		var o storagev1.StorageClass
		return s.get(ctx, key, &o, func() { into.StorageClasses = append(into.StorageClasses, o) })
	case state.PersistentVolumeClaim:
		var o corev1.PersistentVolumeClaim
		return s.get(ctx, key, &o, func() { into.PersistentVolumeClaims = append(into.PersistentVolumeClaims, o) })
	case state.DataVolume:
		var o cdiv1.DataVolume
		return s.get(ctx, key, &o, func() { into.DataVolumes = append(into.DataVolumes, o) })
	case state.StorageProfile:
		var o cdiv1.StorageProfile
		return s.get(ctx, key, &o, func() { into.StorageProfiles = append(into.StorageProfiles, o) })
	case state.CDI:
		var o cdiv1.CDI
		return s.get(ctx, key, &o, func() { into.CDIs = append(into.CDIs, o) })
	case state.CSIDriver:
		var o storagev1.CSIDriver
		return s.get(ctx, key, &o, func() { into.CSIDrivers = append(into.CSIDrivers, o) })
	case state.VolumeSnapshotClass:
		var o snapshotv1.VolumeSnapshotClass
		return s.get(ctx, key, &o, func() { into.VolumeSnapshotClasses = append(into.VolumeSnapshotClasses, o) })
	case state.CDIConfig:
		var o cdiv1.CDIConfig
		return s.get(ctx, key, &o, func() { into.CDIConfigs = append(into.CDIConfigs, o) })
	case state.PersistentVolume:
		var o corev1.PersistentVolume
		return s.get(ctx, key, &o, func() { into.PersistentVolumes = append(into.PersistentVolumes, o) })
	case state.KubevirtMachineTemplate:
		var o capk.KubevirtMachineTemplate
		return s.get(ctx, key, &o, func() { into.KubevirtMachineTemplates = append(into.KubevirtMachineTemplates, o) })
	case state.VirtualMachine:
		var o kubevirtv1.VirtualMachine
		return s.get(ctx, key, &o, func() { into.VirtualMachines = append(into.VirtualMachines, o) })
	case state.DataSource:
		var o cdiv1.DataSource
		return s.get(ctx, key, &o, func() { into.DataSources = append(into.DataSources, o) })
	case state.KubernetesNodes, state.HelmRelease:
		var o unstructured.Unstructured
		o.SetGroupVersionKind(kinds.Of(k).GVK)
		if err := s.get(ctx, key, &o, func() {}); err != nil {
			return err
		}
		return kinds.AppendUnstructured(into, k, o.Object)
	}
	return fmt.Errorf("controllerruntime: %v is not a kind the planner reads", k)
}

func (s source) get(ctx context.Context, key client.ObjectKey, o client.Object, keep func()) error {
	if err := s.c.Get(ctx, key, o, client.UnsafeDisableDeepCopy); err != nil {
		return schemeHint(err)
	}
	keep()
	return nil
}

// schemeHint says how to fix a client whose scheme lacks the CDI, KubeVirt
// or template types. That
// is the caller's bug, not the cluster's state, so it stays an error
// rather than an unknown kind that would only warn forever.
func schemeHint(err error) error {
	if runtime.IsNotRegisteredError(err) {
		return fmt.Errorf("%w (register the types with controllerruntime.AddToScheme)", err)
	}
	return err
}

var _ clusterread.DiskSource = source{}

// ListDisks lists a pool's disks through the cache's index of their pool
// annotation, adding the index to the cache's informer first if it has
// none. It can only over a cache itself (cache.Informers), in one
// namespace: a manager's client does not say whether it reads from one,
// and the API server has no such index.
func (s source) ListDisks(ctx context.Context, k state.Kind, ns string, pools []string, into *state.State) (bool, error) {
	fi, ok := s.c.(cache.Informers)
	obj := diskObject(k)
	if !ok || ns == "" || obj == nil {
		return false, nil
	}
	if idx, ok, err := s.store(ctx, k); ok || err != nil {
		if err != nil {
			return true, err
		}
		for _, pool := range pools {
			items, err := diskindex.Lookup(idx, ns, pool)
			if err != nil {
				// The index is missing: add it, and look again. Any
				// other failure fails again, and is the lookup's.
				_ = diskindex.Index(ctx, fi, obj)
				items, err = diskindex.Lookup(idx, ns, pool)
			}
			if err == nil {
				err = expand(k, items, into)
			}
			if err != nil {
				return true, err
			}
		}
		return true, nil
	}
	for _, pool := range pools {
		opts := []client.ListOption{client.UnsafeDisableDeepCopy, client.InNamespace(ns), client.MatchingFields{diskindex.Field: pool}}
		err := s.listDisks(ctx, k, opts, into)
		if err != nil && !meta.IsNoMatchError(err) {
			// Most likely the index is missing: add it, and list again.
			// Any other failure fails again, and is the list's.
			_ = diskindex.Index(ctx, fi, obj)
			err = s.listDisks(ctx, k, opts, into)
		}
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

func (s source) listDisks(ctx context.Context, k state.Kind, opts []client.ListOption, into *state.State) error {
	if k == state.DataVolume {
		var l cdiv1.DataVolumeList
		return s.list(ctx, &l, opts, func() { into.DataVolumes = append(into.DataVolumes, l.Items...) })
	}
	var l corev1.PersistentVolumeClaimList
	return s.list(ctx, &l, opts, func() { into.PersistentVolumeClaims = append(into.PersistentVolumeClaims, l.Items...) })
}

// storeResources are the kinds a Reader over a cache reads from its
// informers' stores, as a NotFound names them.
var storeResources = map[state.Kind]schema.GroupResource{
	state.PersistentVolumeClaim: {Resource: "persistentvolumeclaims"},
	state.DataVolume:            {Group: cdiv1.SchemeGroupVersion.Group, Resource: "datavolumes"},
}

// store is the store of the informer of kind k (a PVC or a DataVolume)
// when the client is a cache, once it has synced (false for any other
// kind or client). Its items are read as they are, not copied: a cache
// that holds worker disks compactly (adapters/internal/compact) holds
// items a typed list could not take.
func (s source) store(ctx context.Context, k state.Kind) (toolscache.Indexer, bool, error) {
	fi, ok := s.c.(cache.Informers)
	obj := diskObject(k)
	if !ok || obj == nil {
		return nil, false, nil
	}
	inf, err := fi.GetInformer(ctx, obj)
	if err != nil {
		return nil, true, schemeHint(err)
	}
	si, ok := inf.(interface{ GetIndexer() toolscache.Indexer })
	if !ok {
		return nil, false, nil
	}
	if !inf.HasSynced() {
		return nil, true, fmt.Errorf("the cache's %s informer has not synced", storeResources[k].Resource)
	}
	return si.GetIndexer(), true, nil
}

// diskObject is an object of kind k when it is a disk kind (a PVC or a
// DataVolume), nil otherwise.
func diskObject(k state.Kind) client.Object {
	switch k {
	case state.PersistentVolumeClaim:
		return &corev1.PersistentVolumeClaim{}
	case state.DataVolume:
		return &cdiv1.DataVolume{}
	}
	return nil
}

// expand appends a store's items of kind k to into.
func expand(k state.Kind, items []any, into *state.State) error {
	var err error
	if k == state.DataVolume {
		into.DataVolumes, err = compact.DataVolumes(into.DataVolumes, items)
	} else {
		into.PersistentVolumeClaims, err = compact.Claims(into.PersistentVolumeClaims, items)
	}
	return err
}
