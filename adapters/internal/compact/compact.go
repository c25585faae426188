// Package compact holds the worker disks of a controller-runtime cache in
// a fraction of their size. A pool's disks (its PVCs and DataVolumes:
// each carries the pool and the golden annotations, outside the goldens'
// namespace) differ, once slimmed, in little but their names: Transform
// keeps of each a record of what is its own (name, resourceVersion,
// creation time, and the PVC's volume name or the DataVolume's claim
// name) and one object, shared by the disks of its namespace with the
// same annotations and labels that are equal in every other field. At
// 100,000 disks that is some 75 MiB less live heap.
//
// The records are client.Objects: a disk's name, namespace, annotations
// and labels read as the disk's own, a deep copy (a manager's client
// reads copies) is the typed object, and a setter changes the record's
// own copy, never the shared object. A read that does not copy (a list
// with client.UnsafeDisableDeepCopy) cannot hand a record back as a typed
// object and fails; read the informer's store and expand its items with
// Claims and DataVolumes instead.
package compact

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

type (
	pvc = corev1.PersistentVolumeClaim
	dv  = cdiv1.DataVolume
)

// kind is a typed object a record stands for: a PVC or a DataVolume.
type kind[T any] interface {
	*T
	client.Object
}

// Claim is a worker disk's PVC, Volume a worker disk's DataVolume, as
// Transform holds them.
type (
	Claim  = record[pvc, *pvc]
	Volume = record[dv, *dv]
)

// record is a disk's own fields and the object its kin share.
type record[T any, P kind[T]] struct {
	own
	shared *T
}

// own is what a disk holds of itself: 72 bytes.
type own struct {
	name, resourceVersion string
	// unique is the PVC's volume name, the DataVolume's claim name.
	unique  string
	created metav1.Time
}

// bucketLimit is the most distinct shared objects a namespace's disks of
// one set of annotations and labels get (Pending and Bound claims, two
// sizes while a pool is resized); a disk past it stays whole, as it came.
const bucketLimit = 8

var (
	claims  = newTable[pvc]()
	volumes = newTable[dv]()
)

var _ toolscache.TransformFunc = Transform

// Transform makes a worker disk (a PVC or a DataVolume with the pool and
// the golden annotations, outside the goldens' namespace) a Claim or a
// Volume; any other object, and one already made, passes as it is. Run it
// after the transform that slims the objects: the more they share, the
// fewer distinct objects are kept.
func Transform(in any) (any, error) {
	switch o := in.(type) {
	case *pvc:
		return compact(claims, o), nil
	case *dv:
		return compact(volumes, o), nil
	}
	return in, nil
}

// After is first, then Transform.
func After(first toolscache.TransformFunc) toolscache.TransformFunc {
	if first == nil {
		return Transform
	}
	return func(in any) (any, error) {
		out, err := first(in)
		if err != nil {
			return nil, err
		}
		return Transform(out)
	}
}

func compact[T any, P kind[T]](t *table[T], o P) any {
	a := o.GetAnnotations()
	if a[naming.PoolAnnotation] == "" || a[naming.GoldenAnnotation] == "" || o.GetNamespace() == naming.GoldenNamespace {
		return o
	}
	u := uniqueOf[T](o)
	mine := own{name: o.GetName(), resourceVersion: o.GetResourceVersion(), unique: *u, created: o.GetCreationTimestamp()}
	o.SetName("")
	o.SetResourceVersion("")
	o.SetCreationTimestamp(metav1.Time{})
	*u = ""
	shared, ok := t.intern(keyOf(o), (*T)(o))
	if !ok {
		mine.restore(o)
		*u = mine.unique
		return o
	}
	return &record[T, P]{own: mine, shared: shared}
}

// uniqueOf is the field of a disk besides its metadata that is its own.
func uniqueOf[T any](o *T) *string {
	switch o := any(o).(type) {
	case *pvc:
		return &o.Spec.VolumeName
	case *dv:
		return &o.Status.ClaimName
	}
	panic(fmt.Sprintf("compact: %T is not a disk", o))
}

func (m own) restore(o client.Object) {
	o.SetName(m.name)
	o.SetResourceVersion(m.resourceVersion)
	o.SetCreationTimestamp(m.created)
}

// keyOf is what disks that may share an object have in common: their
// namespace, annotations and labels (the pool's, the golden's).
func keyOf(o client.Object) string {
	var b strings.Builder
	b.WriteString(o.GetNamespace())
	for _, m := range []map[string]string{o.GetAnnotations(), o.GetLabels()} {
		b.WriteByte(0)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			b.WriteString(k)
			b.WriteByte(1)
			b.WriteString(m[k])
			b.WriteByte(2)
		}
	}
	return b.String()
}

// table holds the shared objects weakly: one no disk holds any more is
// collected, and leaves its bucket.
type table[T any] struct {
	mu      sync.Mutex
	buckets map[string][]weak.Pointer[T]
}

func newTable[T any]() *table[T] { return &table[T]{buckets: map[string][]weak.Pointer[T]{}} }

// intern is the object of key's bucket equal to o, or o itself, added to
// the bucket; false when the bucket is full.
func (t *table[T]) intern(key string, o *T) (*T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buckets[key]
	for _, w := range b {
		if p := w.Value(); p != nil && reflect.DeepEqual(p, o) {
			return p, true
		}
	}
	b = slices.DeleteFunc(b, func(w weak.Pointer[T]) bool { return w.Value() == nil })
	if len(b) >= bucketLimit {
		t.buckets[key] = b
		return nil, false
	}
	t.buckets[key] = append(b, weak.Make(o))
	runtime.AddCleanup(o, t.forget, key)
	return o, true
}

// forget drops the collected objects of key's bucket.
func (t *table[T]) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := slices.DeleteFunc(t.buckets[key], func(w weak.Pointer[T]) bool { return w.Value() == nil })
	if len(b) == 0 {
		delete(t.buckets, key)
		return
	}
	t.buckets[key] = b
}

// held is how many live shared objects key's bucket holds.
func (t *table[T]) held(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, w := range t.buckets[key] {
		if w.Value() != nil {
			n++
		}
	}
	return n
}

// Object is the disk as a typed object that shares its maps, slices and
// pointers with the cache's: read it, never write it.
func (r *record[T, P]) Object() P {
	v := new(T)
	r.fill(v)
	return P(v)
}

// fill writes the disk into v: the shared object, with what is the
// record's own over it.
func (r *record[T, P]) fill(v *T) {
	*v = *r.shared
	r.own.restore(P(v))
	*uniqueOf[T](v) = r.unique
}

// DeepCopyObject is the disk as a typed object of its own.
func (r *record[T, P]) DeepCopyObject() k8sruntime.Object {
	p := P(r.shared).DeepCopyObject().(P)
	r.own.restore(p)
	*uniqueOf[T]((*T)(p)) = r.unique
	return p
}

// MarshalJSON is the typed object's JSON.
func (r *record[T, P]) MarshalJSON() ([]byte, error) { return jsonMarshal(r.Object()) }

// write makes the shared object the record's own, to change it.
func (r *record[T, P]) write() P {
	r.shared = (*T)(P(r.shared).DeepCopyObject().(P))
	return P(r.shared)
}

func (r *record[T, P]) GetObjectKind() schema.ObjectKind { return r }

func (r *record[T, P]) GroupVersionKind() schema.GroupVersionKind {
	return P(r.shared).GetObjectKind().GroupVersionKind()
}

func (r *record[T, P]) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	r.write().GetObjectKind().SetGroupVersionKind(gvk)
}

func (r *record[T, P]) GetName() string                    { return r.name }
func (r *record[T, P]) SetName(name string)                { r.name = name }
func (r *record[T, P]) GetResourceVersion() string         { return r.resourceVersion }
func (r *record[T, P]) SetResourceVersion(v string)        { r.resourceVersion = v }
func (r *record[T, P]) GetCreationTimestamp() metav1.Time  { return r.created }
func (r *record[T, P]) SetCreationTimestamp(t metav1.Time) { r.created = t }

func (r *record[T, P]) GetNamespace() string    { return P(r.shared).GetNamespace() }
func (r *record[T, P]) SetNamespace(ns string)  { r.write().SetNamespace(ns) }
func (r *record[T, P]) GetGenerateName() string { return P(r.shared).GetGenerateName() }
func (r *record[T, P]) SetGenerateName(n string) {
	r.write().SetGenerateName(n)
}
func (r *record[T, P]) GetUID() types.UID       { return P(r.shared).GetUID() }
func (r *record[T, P]) SetUID(uid types.UID)    { r.write().SetUID(uid) }
func (r *record[T, P]) GetGeneration() int64    { return P(r.shared).GetGeneration() }
func (r *record[T, P]) SetGeneration(g int64)   { r.write().SetGeneration(g) }
func (r *record[T, P]) GetSelfLink() string     { return P(r.shared).GetSelfLink() }
func (r *record[T, P]) SetSelfLink(link string) { r.write().SetSelfLink(link) }
func (r *record[T, P]) GetDeletionTimestamp() *metav1.Time {
	return P(r.shared).GetDeletionTimestamp()
}
func (r *record[T, P]) SetDeletionTimestamp(t *metav1.Time) { r.write().SetDeletionTimestamp(t) }
func (r *record[T, P]) GetDeletionGracePeriodSeconds() *int64 {
	return P(r.shared).GetDeletionGracePeriodSeconds()
}
func (r *record[T, P]) SetDeletionGracePeriodSeconds(s *int64) {
	r.write().SetDeletionGracePeriodSeconds(s)
}
func (r *record[T, P]) GetLabels() map[string]string       { return P(r.shared).GetLabels() }
func (r *record[T, P]) SetLabels(l map[string]string)      { r.write().SetLabels(l) }
func (r *record[T, P]) GetAnnotations() map[string]string  { return P(r.shared).GetAnnotations() }
func (r *record[T, P]) SetAnnotations(a map[string]string) { r.write().SetAnnotations(a) }
func (r *record[T, P]) GetFinalizers() []string            { return P(r.shared).GetFinalizers() }
func (r *record[T, P]) SetFinalizers(f []string)           { r.write().SetFinalizers(f) }
func (r *record[T, P]) GetOwnerReferences() []metav1.OwnerReference {
	return P(r.shared).GetOwnerReferences()
}
func (r *record[T, P]) SetOwnerReferences(refs []metav1.OwnerReference) {
	r.write().SetOwnerReferences(refs)
}
func (r *record[T, P]) GetManagedFields() []metav1.ManagedFieldsEntry {
	return P(r.shared).GetManagedFields()
}
func (r *record[T, P]) SetManagedFields(f []metav1.ManagedFieldsEntry) {
	r.write().SetManagedFields(f)
}

var (
	_ client.Object = (*Claim)(nil)
	_ client.Object = (*Volume)(nil)
)

// Claims appends the PVCs of an informer's store items to into: a Claim as
// its Object, a PVC as it is.
func Claims(into []corev1.PersistentVolumeClaim, items []any) ([]corev1.PersistentVolumeClaim, error) {
	return expand[pvc, *pvc](into, items)
}

// DataVolumes appends the DataVolumes of an informer's store items to
// into: a Volume as its Object, a DataVolume as it is.
func DataVolumes(into []cdiv1.DataVolume, items []any) ([]cdiv1.DataVolume, error) {
	return expand[dv, *dv](into, items)
}

// expand grows into once and writes each disk in its place: a read of a
// pool's disks allocates nothing else.
func expand[T any, P kind[T]](into []T, items []any) ([]T, error) {
	into = slices.Grow(into, len(items))
	for _, it := range items {
		switch o := it.(type) {
		case P:
			into = append(into, *(*T)(o))
		case *record[T, P]:
			into = into[:len(into)+1]
			o.fill(&into[len(into)-1])
		default:
			var want T
			return into, fmt.Errorf("compact: an informer of %T holds a %T", want, it)
		}
	}
	return into, nil
}

var jsonMarshal = json.Marshal
