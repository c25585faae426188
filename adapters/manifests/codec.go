package manifests

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"time"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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

// decodeJSON decodes one object as encoding/json does, but matching keys
// to fields by case (as runtime's unstructured converter does), and
// through the worker for strings, string maps, resource lists, times and
// quantities.
func (w *worker) decodeJSON(data []byte, v any) error {
	if w.opts == nil {
		w.opts = json.WithUnmarshalers(json.JoinUnmarshalers(
			json.UnmarshalFromFunc(w.decodeString),
			json.UnmarshalFromFunc(w.decodeStringMap),
			json.UnmarshalFromFunc(w.decodeResourceList),
			json.UnmarshalFromFunc(decodeTime),
			json.UnmarshalFromFunc(decodeQuantity),
		))
	}
	return json.Unmarshal(data, v, w.opts)
}

// decodeString reads a string as its own string, one of the worker's if
// an equal one was read lately (a string cannot be changed, so sharing one
// is never seen), and anything else the default way.
func (w *worker) decodeString(dec *jsontext.Decoder, s *string) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*s, err = w.unquote(v)
	return err
}

// unquote is the string a JSON string v says, interned.
func (w *worker) unquote(v jsontext.Value) (string, error) {
	b := v[1 : len(v)-1]
	if bytes.IndexByte(b, '\\') >= 0 {
		var err error
		if w.buf, err = jsontext.AppendUnquote(w.buf[:0], v); err != nil {
			return "", err
		}
		b = w.buf
	}
	return w.internBytes(b), nil
}

// decodeTime reads a metav1.Time as its UnmarshalJSON does (null, or an
// RFC 3339 string, in the local zone), without encoding/json in between.
func decodeTime(dec *jsontext.Decoder, t *metav1.Time) error {
	switch dec.PeekKind() {
	case 'n':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		t.Time = time.Time{}
		return nil
	case '"':
	default:
		return errors.New("time: not a string")
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, tok.String())
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// decodeQuantity reads a Quantity outside a resource list (a virtual
// machine's guest memory) as its UnmarshalJSON does, once its text has
// passed size.Check.
func decodeQuantity(dec *jsontext.Decoder, q *resource.Quantity) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return readQuantity(q, raw)
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

// decodeStringMap reads a map[string]string (labels, annotations,
// parameters) into a map of the object's own, its short strings interned.
// A value that is not a string fails the object, which the general path
// then reads.
func (w *worker) decodeStringMap(dec *jsontext.Decoder, m *map[string]string) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		*m = nil
		return err
	}
	if dec.PeekKind() != '{' {
		return errors.ErrUnsupported
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	pairs := w.pairs[:0]
	for dec.PeekKind() != '}' {
		k, err := dec.ReadValue()
		if err != nil {
			return err
		}
		key, err := w.unquote(k)
		if err != nil {
			return err
		}
		if dec.PeekKind() != '"' {
			return fmt.Errorf("label %q: not a string", key)
		}
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		value, err := w.unquote(v)
		if err != nil {
			return err
		}
		pairs = append(pairs, key, value)
	}
	w.pairs = pairs
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	out := make(map[string]string, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out[pairs[i]] = pairs[i+1]
	}
	*m = out
	return nil
}

// decodeResourceList reads a corev1.ResourceList, parsing each distinct
// list once (20,000 worker disks request the same 20Gi) and giving each
// object a copy of its own.
func (w *worker) decodeResourceList(dec *jsontext.Decoder, m *corev1.ResourceList) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		*m = nil
		return err
	}
	if dec.PeekKind() != '{' {
		return errors.ErrUnsupported
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	w.raw = w.raw[:0]
	w.rawAt = w.rawAt[:0]
	for dec.PeekKind() != '}' {
		k, err := dec.ReadValue()
		if err != nil {
			return err
		}
		name, err := w.unquote(k)
		if err != nil {
			return err
		}
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		w.rawAt = append(w.rawAt, len(w.raw))
		w.raw = append(w.raw, name...)
		w.raw = append(w.raw, 0)
		w.raw = append(w.raw, bytes.TrimSpace(v)...)
		w.raw = append(w.raw, 0)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if parsed, ok := w.lists[string(w.raw)]; ok {
		*m = copyList(parsed)
		return nil
	}
	list := make(corev1.ResourceList, len(w.rawAt))
	for _, at := range w.rawAt {
		entry := w.raw[at:]
		name, rest, _ := strings.Cut(string(entry), "\x00")
		value, _, _ := strings.Cut(rest, "\x00")
		var q resource.Quantity
		if err := readQuantity(&q, []byte(value)); err != nil {
			return err
		}
		list[corev1.ResourceName(w.intern(name))] = q
	}
	if len(w.lists) < maxShared && len(w.raw) <= 256 {
		w.lists[string(w.raw)] = list
		list = copyList(list)
	}
	*m = list
	return nil
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

// maxShared bounds the worker's table of resource lists: a file of a
// million distinct lists parses the first ones once, and the rest as
// they come.
const maxShared = 1 << 16

// worker is the state one decoding goroutine keeps: its strings read
// lately, its resource lists parsed, and scratch buffers.
type worker struct {
	strings stringCache
	seed    maphash.Seed
	opts    json.Options
	lists   map[string]corev1.ResourceList
	pairs   []string
	raw     []byte
	rawAt   []int
	buf     []byte // a string unquoted
	json    []byte // a YAML item transcoded
	tc      transcoder
	js      jsonScanner
	// name and namespace of the object decode made last.
	name, namespace string
}

// stringCache holds the strings a worker read lately, one per slot of
// their hash: a string repeated from object to object (a namespace, a
// class, a phase, a label) is one string in memory, and one never seen
// again (a name, a uid) takes a slot until another string needs it. It
// takes 256 KiB whatever the file holds.
type stringCache [1 << 14]string

func newWorker() *worker {
	return &worker{seed: maphash.MakeSeed(), lists: map[string]corev1.ResourceList{}}
}

// maxInterned bounds the strings the cache holds: a longer one is rarely
// repeated (kubectl's last-applied configuration).
const maxInterned = 128

// intern returns the worker's copy of s if it has one, and keeps s.
func (w *worker) intern(s string) string {
	if len(s) < 2 || len(s) > maxInterned {
		return s
	}
	slot := &w.strings[maphash.String(w.seed, s)%uint64(len(w.strings))]
	if *slot == s {
		return *slot
	}
	*slot = s
	return s
}

// internBytes is intern of a string the bytes b hold, made only if the
// worker has no copy.
func (w *worker) internBytes(b []byte) string {
	if len(b) < 2 || len(b) > maxInterned {
		return string(b)
	}
	slot := &w.strings[maphash.Bytes(w.seed, b)%uint64(len(w.strings))]
	if *slot == string(b) {
		return *slot
	}
	*slot = string(b)
	return *slot
}
