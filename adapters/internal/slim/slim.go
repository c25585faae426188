// Package slim keeps of each object a plan reads only what a plan, a
// catalog render or a consumer count reads of it, for the informers of a
// controller-runtime cache and the pages of a client-go list alike: a
// cluster of 100,000 worker disks is then held as their names, classes,
// sizes and phases rather than whole objects. From every object it drops
// managedFields and the last-applied-configuration annotation. From the
// kinds the planner reads it drops the uid and every annotation and label
// it does not read. PVCs keep their spec and, of their status, phase and
// capacity; DataVolumes their spec and, of their status, phase, restart
// count, claim name and, until they have succeeded, their Running
// condition's type, status and reason; PersistentVolumes
// their claim reference, CSI driver, class, capacity, volume mode and
// access modes, and their phase, but a volume bound to a claim outside the
// goldens' namespace only its name, the claim's namespace and name and its
// CSI driver. Pools, VM disks and HelmReleases, read as unstructured,
// keep their metadata but for owner references and finalizers, and
// everything else but their status; other objects read as unstructured
// keep everything else. Equal maps, lists, strings, class
// names, volume modes and CSI sources are shared: the objects are read,
// never written.
package slim

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unique"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

var _ toolscache.TransformFunc = Transform

// Transform slims one object, in place (an informer, and a list's page,
// hand it over freshly decoded), and returns it: a cache's transform
// (cache.Options.DefaultTransform). Anything that is not an object (a
// tombstone) passes as it is.
func Transform(in any) (any, error) {
	switch o := in.(type) {
	case *corev1.PersistentVolumeClaim:
		slimMeta(&o.ObjectMeta)
		o.Spec.StorageClassName = internPtr(o.Spec.StorageClassName)
		o.Spec.VolumeMode = internMode(o.Spec.VolumeMode)
		o.Spec.AccessModes = accessModes.intern(o.Spec.AccessModes)
		o.Spec.Resources.Requests = resources.intern(o.Spec.Resources.Requests)
		o.Status = corev1.PersistentVolumeClaimStatus{Phase: o.Status.Phase, Capacity: resources.intern(o.Status.Capacity)}
	case *cdiv1.DataVolume:
		slimMeta(&o.ObjectMeta)
		// An informer that streams its list transforms each object twice
		// (client-go's reflector, then its queue): a storage spec or
		// source the first pass shared is read through other objects by
		// then, and is left as it is.
		if st := o.Spec.Storage; st != nil && !storages.holds(st) {
			st.StorageClassName = internPtr(st.StorageClassName)
			st.VolumeMode = internMode(st.VolumeMode)
			st.AccessModes = accessModes.intern(st.AccessModes)
			st.Resources.Requests = resources.intern(st.Resources.Requests)
		}
		if p := o.Spec.PVC; p != nil {
			p.StorageClassName = internPtr(p.StorageClassName)
			p.VolumeMode = internMode(p.VolumeMode)
			p.AccessModes = accessModes.intern(p.AccessModes)
			p.Resources.Requests = resources.intern(p.Resources.Requests)
		}
		if src := o.Spec.Source; src != nil && src.PVC != nil && !sources.holds(src) {
			src.PVC.Namespace, src.PVC.Name = intern(src.PVC.Namespace), intern(src.PVC.Name)
		}
		// The disks that clone one golden at one size on one class have
		// equal sources and storage: one of each is kept for them all.
		if src := o.Spec.Source; src != nil && src.PVC != nil && *src == (cdiv1.DataVolumeSource{PVC: src.PVC}) {
			o.Spec.Source = sources.intern(src, src.PVC.Namespace+"/"+src.PVC.Name)
		}
		if key, ok := storageKey(o.Spec.Storage); ok {
			o.Spec.Storage = storages.intern(o.Spec.Storage, key)
		}
		slimDataVolumeStatus(&o.Status)
	case *corev1.PersistentVolume:
		if r := o.Spec.ClaimRef; r != nil && r.Namespace != naming.GoldenNamespace {
			*o = boundElsewhere(o)
			break
		}
		slimMeta(&o.ObjectMeta)
		slimVolume(o)
	case *storagev1.StorageClass:
		slimMeta(&o.ObjectMeta)
	case *cdiv1.StorageProfile:
		slimMeta(&o.ObjectMeta)
	case *snapshotv1.VolumeSnapshotClass:
		slimMeta(&o.ObjectMeta)
	case *cdiv1.CDI:
		slimMeta(&o.ObjectMeta)
	case *cdiv1.CDIConfig:
		slimMeta(&o.ObjectMeta)
	case *storagev1.CSIDriver:
		slimMeta(&o.ObjectMeta)
	case *unstructured.Unstructured:
		slimUnstructured(o)
	default:
		if m, err := meta.Accessor(in); err == nil {
			// A tombstone (DeletedFinalStateUnknown) has no accessor and
			// passes as it is.
			if m.GetManagedFields() != nil {
				m.SetManagedFields(nil)
			}
			if a := m.GetAnnotations(); a[lastApplied] != "" {
				delete(a, lastApplied)
				m.SetAnnotations(a)
			}
		}
	}
	return in, nil
}

// slimUnstructured drops of an object read as unstructured its managed
// fields and the last-applied-configuration annotation and, of a pool, a
// HelmRelease or a VM disk (specOnly), what no plan, catalog render or
// consumer count reads of it: its status (a Flux release's history can be
// many times its spec), owner references and finalizers. Its uid stays:
// an Event refers to it. Any other kind (a DataVolume read as
// unstructured) keeps its status.
func slimUnstructured(u *unstructured.Unstructured) {
	md, ok := u.Object["metadata"].(map[string]any)
	if !ok {
		return
	}
	delete(md, "managedFields")
	if specOnly[u.GroupVersionKind().Group] {
		delete(u.Object, "status")
		delete(md, "ownerReferences")
		delete(md, "finalizers")
	}
	if a, ok := md["annotations"].(map[string]any); ok {
		if _, ok := a[lastApplied]; ok {
			delete(a, lastApplied)
			if len(a) == 0 {
				delete(md, "annotations")
			}
		}
	}
}

// specOnly are the API groups of the kinds whose spec alone is read: the
// pools and VM disks (apps.cozystack.io) and Flux's HelmReleases.
var specOnly = map[string]bool{"apps.cozystack.io": true, "helm.toolkit.fluxcd.io": true}

// lastApplied is the annotation kubectl apply keeps a whole copy of the
// object in.
const lastApplied = corev1.LastAppliedConfigAnnotation

// readAnnotations are the annotations the planner, the catalog and the
// consumer count read, on any kind: those of the worker disks and the
// goldens, CDI's that say how a golden was imported or a disk is
// populated, the default marks of StorageClasses and
// VolumeSnapshotClasses, and the smallest PVC a StorageProfile allows.
var readAnnotations = map[string]bool{
	naming.ImportEndpointAnnotation:           true,
	naming.UsePopulatorAnnotation:             true,
	naming.BindImmediateAnnotation:            true,
	naming.ResourcePolicyAnnotation:           true,
	storage.DefaultAnnotation:                 true,
	storage.BetaDefaultAnnotation:             true,
	storage.VirtDefaultAnnotation:             true,
	cdi.MinimumSupportedPVCSizeAnnotation:     true,
	stateindex.DefaultSnapshotClassAnnotation: true,
}

// ownPrefix is the prefix of the annotations the project writes.
const ownPrefix = "kubernetes-worker-image.cozystack.io/"

// readLabels are the labels read: the golden's mark, and the pool's
// MachineDeployment name.
var readLabels = map[string]bool{naming.ManagedByLabel: true, naming.DeploymentNameLabel: true}

// slimMeta keeps the name, namespace, resourceVersion, generation,
// creation and deletion times, and the annotations and labels read: no
// plan reads an object's uid (a claim is found by its volume's claim
// reference namespace and name), and a uid is 48 bytes of each.
func slimMeta(m *metav1.ObjectMeta) {
	*m = metav1.ObjectMeta{
		Name: m.Name, Namespace: intern(m.Namespace), ResourceVersion: m.ResourceVersion, Generation: m.Generation,
		CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp,
		Labels:      strs.intern(keep(m.Labels, func(k string) bool { return readLabels[k] })),
		Annotations: strs.intern(keep(m.Annotations, func(k string) bool { return readAnnotations[k] || strings.HasPrefix(k, ownPrefix) })),
	}
}

// keep is the entries of m whose key is read, nil when there is none.
func keep(m map[string]string, read func(string) bool) map[string]string {
	n := 0
	for k := range m {
		if read(k) {
			n++
		}
	}
	if n == len(m) {
		return m
	}
	if n == 0 {
		return nil
	}
	out := make(map[string]string, n)
	for k, v := range m {
		if read(k) {
			out[k] = v
		}
	}
	return out
}

// slimDataVolumeStatus keeps what says whether a golden, or any
// DataVolume a disk clones, is imported, importing, stalled or failed
// (internal/golden importOf, and the detail a refusal gives): its phase,
// restart count and claim name, and, unless it has Succeeded (which says
// it all, and is what most DataVolumes of a cluster have), the type,
// status and reason of its Running condition. Its other conditions are
// never read.
func slimDataVolumeStatus(s *cdiv1.DataVolumeStatus) {
	var conds []cdiv1.DataVolumeCondition
	if s.Phase != cdiv1.Succeeded {
		for _, c := range s.Conditions {
			if c.Type == cdiv1.DataVolumeRunning {
				conds = []cdiv1.DataVolumeCondition{{Type: c.Type, Status: intern(c.Status), Reason: intern(c.Reason)}}
				break
			}
		}
	}
	*s = cdiv1.DataVolumeStatus{Phase: s.Phase, RestartCount: s.RestartCount, ClaimName: s.ClaimName, Conditions: conds}
}

// slimVolume keeps what CDI's clone planner reads of a claim's volume
// (pkg/controller/clone/common.go GetDriverFromVolume): the claim it is
// bound to and its CSI driver; and its class, size and mode.
func slimVolume(pv *corev1.PersistentVolume) {
	s := pv.Spec
	spec := corev1.PersistentVolumeSpec{
		Capacity: resources.intern(s.Capacity), AccessModes: accessModes.intern(s.AccessModes), StorageClassName: intern(s.StorageClassName),
		VolumeMode: internMode(s.VolumeMode),
	}
	if r := s.ClaimRef; r != nil {
		spec.ClaimRef = &corev1.ObjectReference{Kind: intern(r.Kind), APIVersion: intern(r.APIVersion), Namespace: intern(r.Namespace), Name: r.Name, UID: r.UID}
	}
	if s.CSI != nil {
		spec.CSI = csiSource(s.CSI.Driver)
	}
	pv.Spec = spec
	pv.Status = corev1.PersistentVolumeStatus{Phase: pv.Status.Phase}
}

// boundElsewhere is what a plan reads of a volume bound to a claim outside
// the goldens' namespace (a VM disk's source, or anything else the cluster
// holds): that it names the claim, and the CSI driver CDI's clone planner
// then clones with (CDI v1.64.0 pkg/controller/clone/common.go:
// GetDriverFromVolume). Most volumes of a cluster are such, and none of
// their other fields is read. Its name and resourceVersion stay, as an
// informer's store keeps them.
func boundElsewhere(pv *corev1.PersistentVolume) corev1.PersistentVolume {
	r := pv.Spec.ClaimRef
	out := corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pv.Name, ResourceVersion: pv.ResourceVersion},
		Spec:       corev1.PersistentVolumeSpec{ClaimRef: &corev1.ObjectReference{Namespace: intern(r.Namespace), Name: r.Name}},
	}
	if pv.Spec.CSI != nil {
		out.Spec.CSI = csiSource(pv.Spec.CSI.Driver)
	}
	return out
}

// Interning: the cache's objects are read, never written, so equal values
// can be one value. The disks of a pool carry the same annotations, most
// disks ask for one of a few sizes, of one of a few classes, in a
// namespace of many: a map of resources alone is about 700 bytes. Equal
// maps are shared through a table of at most internLimit entries per type
// (past it, values are kept as they are), strings through package unique.
const internLimit = 4096

var (
	resources = &table[corev1.ResourceList, corev1.ResourceName, resource.Quantity]{key: resourceKey, value: Spelt}
	strs      = &table[map[string]string, string, string]{key: stringsKey}
)

type table[M ~map[K]V, K ~string, V any] struct {
	key func(M) string
	// value is the value the table keeps for v.
	value func(V) V
	mu    sync.Mutex
	m     map[string]M
	// given holds the maps of m: an object transformed again (an
	// informer's queue after its reflector) finds its own at once.
	given map[unsafe.Pointer]struct{}
}

// intern is the table's map equal to m, m itself when there is none yet
// (and the table keeps it if it has room), nil for an empty m.
func (t *table[M, K, V]) intern(m M) M {
	if len(m) == 0 {
		return nil
	}
	id := reflect.ValueOf(m).UnsafePointer()
	t.mu.Lock()
	_, ok := t.given[id]
	t.mu.Unlock()
	if ok {
		return m
	}
	key := t.key(m)
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.m[key]; ok {
		return v
	}
	if t.m == nil {
		t.m, t.given = map[string]M{}, map[unsafe.Pointer]struct{}{}
	}
	if len(t.m) < internLimit {
		out := make(M, len(m))
		for k, v := range m {
			if t.value != nil {
				v = t.value(v)
			}
			out[K(intern(string(k)))] = v
		}
		t.m[key] = out
		t.given[reflect.ValueOf(out).UnsafePointer()] = struct{}{}
		return out
	}
	return m
}

// resourceKey says a ResourceList: each name and quantity as the quantity
// marshals (the spelling it was given, which a catalog render keeps), with
// its format.
func resourceKey(m corev1.ResourceList) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		q := m[k]
		spelt, _ := q.MarshalJSON() // never fails
		fmt.Fprintf(&b, "%s=%s/%s\x00", k, spelt, q.Format)
	}
	return b.String()
}

// Spelt is q parsed again from the spelling it marshals to, with that
// spelling cached: of two quantities that marshal alike, the one value
// the table keeps for both.
func Spelt(q resource.Quantity) resource.Quantity {
	b, _ := q.MarshalJSON() // never fails
	var out resource.Quantity
	if err := out.UnmarshalJSON(b); err != nil {
		return q
	}
	_ = out.String()
	return out
}

func stringsKey(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	return b.String()
}

// intern is s, shared with every equal string the cache holds.
func intern[S ~string](s S) S { return S(unique.Make(string(s)).Value()) }

// internPtr is p, or a pointer to an equal string that the cache's other
// objects share (a class name): of at most internLimit strings, past which
// p is kept as it is.
func internPtr(p *string) *string {
	if p == nil {
		return nil
	}
	if v, ok := pointers.Load(*p); ok {
		return v.(*string)
	}
	if pointerCount.Load() >= internLimit {
		return p
	}
	s := intern(*p)
	v, loaded := pointers.LoadOrStore(s, &s)
	if !loaded {
		pointerCount.Add(1)
	}
	return v.(*string)
}

// csiSource is a volume's CSI source that says only its driver, shared
// by every volume of that driver (of at most internLimit drivers, past
// which each volume has its own).
func csiSource(driver string) *corev1.CSIPersistentVolumeSource {
	if v, ok := csiSources.Load(driver); ok {
		return v.(*corev1.CSIPersistentVolumeSource)
	}
	src := &corev1.CSIPersistentVolumeSource{Driver: intern(driver)}
	if csiCount.Load() >= internLimit {
		return src
	}
	v, loaded := csiSources.LoadOrStore(src.Driver, src)
	if !loaded {
		csiCount.Add(1)
	}
	return v.(*corev1.CSIPersistentVolumeSource)
}

var (
	csiSources sync.Map // driver → *corev1.CSIPersistentVolumeSource
	csiCount   atomic.Int64
)

// sources and storages share the DataVolumes' equal sources and storage
// specs.
var (
	sources  = &shared[cdiv1.DataVolumeSource]{}
	storages = &shared[cdiv1.StorageSpec]{}
)

// shared is a table of equal values the cache's objects point to.
type shared[T any] struct {
	mu     sync.Mutex
	m      map[string]*T
	values map[*T]struct{}
}

// intern is the table's value of key, which says every field of *p: p
// itself when there is none yet (and the table keeps it if it has room).
func (t *shared[T]) intern(p *T, key string) *T {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.m[key]; ok {
		return v
	}
	if t.m == nil {
		t.m, t.values = map[string]*T{}, map[*T]struct{}{}
	}
	if len(t.m) < internLimit {
		t.m[key] = p
		t.values[p] = struct{}{}
	}
	return p
}

// holds reports whether p is one of the table's values, which other
// objects may point to: such a value is never written.
func (t *shared[T]) holds(p *T) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.values[p]
	return ok
}

// storageKey says a DataVolume's storage spec by its class, volume mode,
// access modes, volume name and requests, once those are the tables'
// (equal requests are one map); ok is false for nil, or for a spec with
// any other field set, which is not shared.
func storageKey(st *cdiv1.StorageSpec) (key string, ok bool) {
	// storageSpecFields (a test) holds the fields this reads.
	if st == nil || st.Selector != nil || st.DataSource != nil || st.DataSourceRef != nil ||
		len(st.Resources.Limits) != 0 {
		return "", false
	}
	return fmt.Sprintf("%p/%p/%p/%p/%s", st.StorageClassName, st.VolumeMode, st.AccessModes, st.Resources.Requests, st.VolumeName), true
}

// The volume modes, which every claim and volume of a cluster points to
// one of.
var (
	block      = corev1.PersistentVolumeBlock
	filesystem = corev1.PersistentVolumeFilesystem
)

// internMode is a pointer to the volume mode p points to, shared.
func internMode(p *corev1.PersistentVolumeMode) *corev1.PersistentVolumeMode {
	switch {
	case p == nil:
		return nil
	case *p == block:
		return &block
	case *p == filesystem:
		return &filesystem
	}
	return p
}

var (
	pointers     sync.Map // string → *string
	pointerCount atomic.Int64
)

// accessModes shares equal lists of access modes, of at most internLimit
// spellings.
var accessModes = &lists[corev1.PersistentVolumeAccessMode]{}

type lists[E ~string] struct {
	mu sync.Mutex
	m  map[string][]E
}

// intern is the list equal to l the table holds, l itself when there is
// none yet (and the table keeps it if it has room), nil for an empty l.
func (t *lists[E]) intern(l []E) []E {
	if len(l) == 0 {
		return nil
	}
	var b strings.Builder
	for _, e := range l {
		b.WriteString(string(e))
		b.WriteByte(0)
	}
	key := b.String()
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.m[key]; ok {
		return v
	}
	if t.m == nil {
		t.m = map[string][]E{}
	}
	if len(t.m) < internLimit {
		out := make([]E, len(l))
		for i, e := range l {
			out[i] = E(intern(string(e)))
		}
		t.m[key] = out
		return out
	}
	return l
}
