package manifests

import (
	"bytes"
	"io"
	"strings"
	"unsafe"

	jsoniter "github.com/json-iterator/go"
	"github.com/modern-go/reflect2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A codec reads the objects of one kind from JSON straight into the kind's
// API type, keeping only what the planner reads of it. A kind without a
// codec is read the general way (a map, then runtime's unstructured
// converter), which is exact and slower: adding a kind to the fast path is
// one entry here and its trim.
type codec struct {
	decode  func(w *worker, data []byte) (any, error)
	append  func(st *state.State, obj any)
	reserve func(st *state.State, n int)
	// trimAll trims the objects the general path appended too.
	trimAll func(st *state.State)
}

var codecs = map[state.Kind]codec{
	state.StorageClass:          typed(trimMeta[storagev1.StorageClass], func(st *state.State) *[]storagev1.StorageClass { return &st.StorageClasses }),
	state.PersistentVolumeClaim: typed(trimPVC, func(st *state.State) *[]corev1.PersistentVolumeClaim { return &st.PersistentVolumeClaims }),
	state.DataVolume:            typed(trimMeta[cdiv1.DataVolume], func(st *state.State) *[]cdiv1.DataVolume { return &st.DataVolumes }),
	state.StorageProfile:        typed(trimMeta[cdiv1.StorageProfile], func(st *state.State) *[]cdiv1.StorageProfile { return &st.StorageProfiles }),
	state.CDI:                   typed(trimMeta[cdiv1.CDI], func(st *state.State) *[]cdiv1.CDI { return &st.CDIs }),
	state.CSIDriver:             typed(trimMeta[storagev1.CSIDriver], func(st *state.State) *[]storagev1.CSIDriver { return &st.CSIDrivers }),
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
			return o, nil
		},
		append: func(st *state.State, obj any) {
			s := slice(st)
			*s = append(*s, *obj.(*T))
		},
		reserve: func(st *state.State, n int) {
			s := slice(st)
			*s = make([]T, 0, len(*s)+n)
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

// trimPVC keeps a PVC's whole spec and, of its status, the phase and
// capacity the planner reads (a golden's bound class and size).
func trimPVC(p *corev1.PersistentVolumeClaim) {
	trimMeta(p)
	_ = p
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
// corev1.ResourceList through the worker, which interns short strings and
// hands out one map for equal small maps: 20,000 worker disks carry the
// same labels and the same 20Gi request, and a Go map of one Quantity
// costs 700 bytes.
type sharing struct{ jsoniter.DummyExtension }

var (
	stringMapType    = reflect2.TypeOf(map[string]string{})
	resourceListType = reflect2.TypeOf(corev1.ResourceList{})
)

func (*sharing) CreateDecoder(typ reflect2.Type) jsoniter.ValDecoder {
	switch typ {
	case stringMapType:
		return stringMapDecoder{}
	case resourceListType:
		return resourceListDecoder{}
	}
	return nil
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
		pairs = append(pairs, w.intern(k), w.intern(it.ReadString()))
		return true
	})
	w.pairs = pairs
	if it.Error != nil {
		return
	}
	*m = w.shareStrings(pairs)
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
	if shared, ok := w.lists[string(w.raw)]; ok {
		*m = shared
		return
	}
	list := make(corev1.ResourceList, len(w.rawAt))
	for _, at := range w.rawAt {
		entry := w.raw[at:]
		name, rest, _ := strings.Cut(string(entry), "\x00")
		value, _, _ := strings.Cut(rest, "\x00")
		var q resource.Quantity
		if err := q.UnmarshalJSON([]byte(value)); err != nil {
			it.ReportError("ResourceList", err.Error())
			return
		}
		list[corev1.ResourceName(w.intern(name))] = q
	}
	if len(w.lists) < maxShared && len(w.raw) <= 256 {
		w.lists[string(w.raw)] = list
	}
	*m = list
}

// maxShared bounds each table of a worker: a file of a million distinct
// strings interns the first ones, and reads the rest as they are.
const maxShared = 1 << 16

// worker is the state one decoding goroutine keeps: its tables of
// interned strings and shared maps, and scratch buffers.
type worker struct {
	strings map[string]string
	maps    map[string]map[string]string
	lists   map[string]corev1.ResourceList
	pairs   []string
	raw     []byte
	rawAt   []int
	key     []byte
	json    []byte // a YAML item transcoded
}

func newWorker() *worker {
	return &worker{strings: map[string]string{}, maps: map[string]map[string]string{}, lists: map[string]corev1.ResourceList{}}
}

// intern returns the worker's copy of a short string.
func (w *worker) intern(s string) string {
	if len(s) > 64 {
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

// shareStrings makes the map of key, value pairs, or returns the one it
// made of the same pairs before, for maps of up to 4 entries (labels;
// annotations mostly differ from object to object).
func (w *worker) shareStrings(pairs []string) map[string]string {
	small := len(pairs) <= 8
	if small {
		w.key = w.key[:0]
		for _, s := range pairs {
			w.key = append(w.key, s...)
			w.key = append(w.key, 0)
		}
		if m, ok := w.maps[string(w.key)]; ok {
			return m
		}
	}
	m := make(map[string]string, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	if small && len(w.maps) < maxShared && len(w.key) <= 256 {
		w.maps[string(w.key)] = m
	}
	return m
}
