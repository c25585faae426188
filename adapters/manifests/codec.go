package manifests

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	jsoniter "github.com/json-iterator/go"
	"github.com/modern-go/reflect2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// A codec reads the objects of one kind from JSON straight into the kind's
// API type, keeping only what the planner reads of it. A kind without a
// codec is read the general way (a map, then runtime's unstructured
// converter), which is exact and slower: adding a kind to the fast path is
// one entry here and its trim.
type codec struct {
	// decode reads the JSON of one object into a new object of the type,
	// trimmed, and returns a pointer to it.
	decode func(w *worker, data []byte) (any, error)
	// store appends the object decode made to its slice of st, and
	// returns where it is.
	store func(st *state.State, obj any) int
	// compact drops from the slice the objects not alive (superseded, or
	// of a document the general path read again).
	compact func(st *state.State, alive []bool)
	// trimAll trims the objects the general path appended too.
	trimAll func(st *state.State)
}

var codecs = map[state.Kind]codec{
	state.StorageClass:          typed(trimMeta[storagev1.StorageClass], func(st *state.State) *[]storagev1.StorageClass { return &st.StorageClasses }),
	state.PersistentVolumeClaim: typed(trimMeta[corev1.PersistentVolumeClaim], func(st *state.State) *[]corev1.PersistentVolumeClaim { return &st.PersistentVolumeClaims }),
	state.DataVolume:            typed(trimMeta[cdiv1.DataVolume], func(st *state.State) *[]cdiv1.DataVolume { return &st.DataVolumes }),
	state.StorageProfile:        typed(trimMeta[cdiv1.StorageProfile], func(st *state.State) *[]cdiv1.StorageProfile { return &st.StorageProfiles }),
	state.CDI:                   typed(trimMeta[cdiv1.CDI], func(st *state.State) *[]cdiv1.CDI { return &st.CDIs }),
	state.CSIDriver:             typed(trimMeta[storagev1.CSIDriver], func(st *state.State) *[]storagev1.CSIDriver { return &st.CSIDrivers }),
	state.VolumeSnapshotClass: typed(trimMeta[snapshotv1.VolumeSnapshotClass], func(st *state.State) *[]snapshotv1.VolumeSnapshotClass {
		return &st.VolumeSnapshotClasses
	}),
	state.CDIConfig:        typed(trimMeta[cdiv1.CDIConfig], func(st *state.State) *[]cdiv1.CDIConfig { return &st.CDIConfigs }),
	state.PersistentVolume: typed(trimMeta[corev1.PersistentVolume], func(st *state.State) *[]corev1.PersistentVolume { return &st.PersistentVolumes }),
	state.KubevirtMachineTemplate: typed(trimMeta[capk.KubevirtMachineTemplate], func(st *state.State) *[]capk.KubevirtMachineTemplate {
		return &st.KubevirtMachineTemplates
	}),
	state.VirtualMachine: typed(trimMeta[kubevirtv1.VirtualMachine], func(st *state.State) *[]kubevirtv1.VirtualMachine { return &st.VirtualMachines }),
	state.DataSource:     typed(trimMeta[cdiv1.DataSource], func(st *state.State) *[]cdiv1.DataSource { return &st.DataSources }),
}

// typed is the codec of the API type T, kept in the slice of st that
// slice points at, and trimmed by trim.
func typed[T any](trim func(*T), slice func(*state.State) *[]T) codec {
	return codec{
		decode: func(w *worker, data []byte) (any, error) {
			o := new(T)
			if err := w.decodeJSON(data, o); err != nil {
				return nil, err
			}
			trim(o)
			if m, ok := any(o).(metav1.Object); ok {
				// The object's strings, rather than copies, name it.
				w.name, w.namespace = m.GetName(), m.GetNamespace()
			}
			return o, nil
		},
		store: func(st *state.State, obj any) int {
			s := slice(st)
			*s = append(*s, *obj.(*T))
			return len(*s) - 1
		},
		compact: func(st *state.State, alive []bool) {
			s := slice(st)
			n := 0
			for i := range *s {
				if i < len(alive) && alive[i] {
					(*s)[n] = (*s)[i]
					n++
				}
			}
			clear((*s)[n:])
			*s = (*s)[:n]
		},
		trimAll: func(st *state.State) {
			s := *slice(st)
			for i := range s {
				trim(&s[i])
			}
		},
	}
}

// trimMeta drops what the API server keeps of every object and no rule
// reads: managed fields, owners, finalizers, uid, resource version.
func trimMeta[T any](o *T) {
	m, ok := any(o).(metav1.ObjectMetaAccessor)
	if !ok {
		return
	}
	om := m.GetObjectMeta()
	om.SetManagedFields(nil)
	om.SetOwnerReferences(nil)
	om.SetFinalizers(nil)
	om.SetUID("")
	om.SetResourceVersion("")
}

// jsonAPI decodes as encoding/json does, but matching keys to fields by
// case (as runtime's unstructured converter does), and through the worker
// for string maps and resource lists.
var jsonAPI = func() jsoniter.API {
	api := jsoniter.Config{CaseSensitive: true}.Froze()
	api.RegisterExtension(&sharing{})
	return api
}()

func (w *worker) decodeJSON(data []byte, v any) error {
	it := jsonAPI.BorrowIterator(data)
	defer jsonAPI.ReturnIterator(it)
	it.Attachment = w
	it.ReadVal(v)
	if it.Error != nil && it.Error != io.EOF {
		return it.Error
	}
	return nil
}

// sharing decodes map[string]string (labels, annotations, parameters) and
// corev1.ResourceList through the worker, which interns short strings (a
// string cannot be changed, so sharing one is never seen) and parses each
// distinct resource list once: 20,000 worker disks carry the same labels
// and the same 20Gi request. Every object gets maps of its own, so that an
// importer who changes one object's map changes no other's.
type sharing struct{ jsoniter.DummyExtension }

var (
	stringMapType    = reflect2.TypeOf(map[string]string{})
	resourceListType = reflect2.TypeOf(corev1.ResourceList{})
	timeType         = reflect2.TypeOf(metav1.Time{})
	quantityType     = reflect2.TypeOf(resource.Quantity{})
)

func (*sharing) CreateDecoder(typ reflect2.Type) jsoniter.ValDecoder {
	switch typ {
	case stringMapType:
		return stringMapDecoder{}
	case resourceListType:
		return resourceListDecoder{}
	case timeType:
		return timeDecoder{}
	case quantityType:
		return quantityDecoder{}
	}
	if typ.Kind() == reflect.String {
		return newStringDecoder() // behind a pointer, in a slice
	}
	return nil
}

// UpdateStructDescriptor gives each string field of a struct its own
// interning decoder, which stops interning the field's values when they
// do not repeat (a name, a uid).
func (*sharing) UpdateStructDescriptor(desc *jsoniter.StructDescriptor) {
	for _, b := range desc.Fields {
		if b.Field.Type().Kind() == reflect.String {
			b.Decoder = newStringDecoder()
		}
	}
}

// stringDecoder reads a string (of any string type) and interns it while
// the values it reads repeat.
type stringDecoder struct{ id int }

var stringDecoders atomic.Int64

func newStringDecoder() *stringDecoder { return &stringDecoder{id: int(stringDecoders.Add(1) - 1)} }

func (d *stringDecoder) Decode(ptr unsafe.Pointer, it *jsoniter.Iterator) {
	w := it.Attachment.(*worker)
	v := it.ReadString()
	if it.Error != nil {
		return
	}
	for len(w.fields) <= d.id {
		w.fields = append(w.fields, tally{})
	}
	*(*string)(ptr) = w.internCounted(&w.fields[d.id], v)
}

// timeDecoder reads a metav1.Time as its UnmarshalJSON does (null, or an
// RFC 3339 string, in the local zone), without encoding/json in between.
type timeDecoder struct{}

func (timeDecoder) Decode(ptr unsafe.Pointer, it *jsoniter.Iterator) {
	t := (*metav1.Time)(ptr)
	if it.ReadNil() {
		t.Time = time.Time{}
		return
	}
	if it.WhatIsNext() != jsoniter.StringValue {
		it.ReportError("Time", "not a string")
		return
	}
	pt, err := time.Parse(time.RFC3339, it.ReadString())
	if err != nil {
		it.ReportError("Time", err.Error())
		return
	}
	t.Time = pt.Local()
}

// quantityDecoder reads a Quantity outside a resource list (a virtual
// machine's guest memory) as its UnmarshalJSON does, once its text has
// passed size.Check.
type quantityDecoder struct{}

func (quantityDecoder) Decode(ptr unsafe.Pointer, it *jsoniter.Iterator) {
	raw := it.SkipAndReturnBytes()
	if it.Error != nil {
		return
	}
	if err := readQuantity((*resource.Quantity)(ptr), raw); err != nil {
		it.ReportError("Quantity", err.Error())
	}
}

// readQuantity reads the JSON raw into q as a Quantity's UnmarshalJSON
// does, refusing first what size.Check refuses of its text (the parser
// would take seconds or hours on it).
func readQuantity(q *resource.Quantity, raw []byte) error {
	text := strings.Trim(string(raw), `"`)
	if err := size.Check(text); err != nil {
		return fmt.Errorf("quantity %q: %w", size.Excerpt(strings.TrimSpace(text)), err)
	}
	return q.UnmarshalJSON(raw)
}

type stringMapDecoder struct{}

func (stringMapDecoder) Decode(ptr unsafe.Pointer, it *jsoniter.Iterator) {
	w := it.Attachment.(*worker)
	m := (*map[string]string)(ptr)
	if it.ReadNil() {
		*m = nil
		return
	}
	pairs := w.pairs[:0]
	it.ReadMapCB(func(it *jsoniter.Iterator, k string) bool {
		k = w.intern(k)
		pairs = append(pairs, k, w.internValue(k, it.ReadString()))
		return true
	})
	w.pairs = pairs
	if it.Error != nil {
		return
	}
	out := make(map[string]string, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out[pairs[i]] = pairs[i+1]
	}
	*m = out
}

type resourceListDecoder struct{}

func (resourceListDecoder) Decode(ptr unsafe.Pointer, it *jsoniter.Iterator) {
	w := it.Attachment.(*worker)
	m := (*corev1.ResourceList)(ptr)
	if it.ReadNil() {
		*m = nil
		return
	}
	w.raw = w.raw[:0]
	w.rawAt = w.rawAt[:0]
	it.ReadMapCB(func(it *jsoniter.Iterator, k string) bool {
		w.rawAt = append(w.rawAt, len(w.raw))
		w.raw = append(w.raw, k...)
		w.raw = append(w.raw, 0)
		w.raw = append(w.raw, bytes.TrimSpace(it.SkipAndReturnBytes())...)
		w.raw = append(w.raw, 0)
		return true
	})
	if it.Error != nil {
		return
	}
	if parsed, ok := w.lists[string(w.raw)]; ok {
		*m = copyList(parsed)
		return
	}
	list := make(corev1.ResourceList, len(w.rawAt))
	for _, at := range w.rawAt {
		entry := w.raw[at:]
		name, rest, _ := strings.Cut(string(entry), "\x00")
		value, _, _ := strings.Cut(rest, "\x00")
		var q resource.Quantity
		if err := readQuantity(&q, []byte(value)); err != nil {
			it.ReportError("ResourceList", err.Error())
			return
		}
		list[corev1.ResourceName(w.intern(name))] = q
	}
	if len(w.lists) < maxShared && len(w.raw) <= 256 {
		w.lists[string(w.raw)] = list
		list = copyList(list)
	}
	*m = list
}

// copyList is a resource list of its own: its map, and its quantities
// (one held as a big decimal shares it with its copies).
func copyList(l corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(l))
	for name, q := range l {
		out[name] = q.DeepCopy()
	}
	return out
}

// maxShared bounds each table of a worker: a file of a million distinct
// strings interns the first ones, and reads the rest as they are.
const maxShared = 1 << 16

// worker is the state one decoding goroutine keeps: its tables of
// interned strings and of resource lists parsed, and scratch buffers.
type worker struct {
	strings map[string]string
	// values says, for each key of a string map, how often its values
	// were met before: the values of a key that are all distinct (a uid)
	// are not interned.
	values map[string]*tally
	// fields counts the same for each string field (stringDecoder.id).
	fields []tally
	lists  map[string]corev1.ResourceList
	pairs  []string
	raw    []byte
	rawAt  []int
	json   []byte // a YAML item transcoded
	tc     transcoder
	js     jsonScanner
	// name and namespace of the object decode made last.
	name, namespace string
}

// tally counts the lookups in a table that found what they looked for.
type tally struct{ hits, misses int }

// useful reports whether adding to the table still pays.
func (t *tally) useful() bool { return t.misses < 64 || t.hits*4 >= t.misses }

func newWorker() *worker {
	return &worker{strings: map[string]string{}, values: map[string]*tally{}, lists: map[string]corev1.ResourceList{}}
}

// intern returns the worker's copy of a short string.
func (w *worker) intern(s string) string {
	if len(s) > 128 {
		return s
	}
	if v, ok := w.strings[s]; ok {
		return v
	}
	if len(w.strings) < maxShared {
		w.strings[s] = s
	}
	return s
}

// internCounted interns v while t says the values it counts repeat.
func (w *worker) internCounted(t *tally, v string) string {
	if s, ok := w.strings[v]; ok {
		t.hits++
		return s
	}
	t.misses++
	if t.useful() && len(v) <= 128 && len(w.strings) < maxShared {
		w.strings[v] = v
	}
	return v
}

// internValue interns the value of key in a string map, while the values
// of key repeat.
func (w *worker) internValue(key, v string) string {
	if s, ok := w.strings[v]; ok {
		if t := w.values[key]; t != nil {
			t.hits++
		}
		return s
	}
	t := w.values[key]
	if t == nil {
		if len(w.values) >= maxShared {
			return v
		}
		t = &tally{}
		w.values[key] = t
	}
	t.misses++
	if t.useful() && len(v) <= 128 && len(w.strings) < maxShared {
		w.strings[v] = v
	}
	return v
}
