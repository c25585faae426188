package clusterread

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/slim"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// restOf is the core clientset's REST client, through which a page of a
// custom resource is read as JSON and decoded into its Go type rather
// than a map (five to ten times the work, for a DataVolume); nil for a
// clientset without one (a fake), which then reads through the dynamic
// client.
func restOf(core kubernetes.Interface) *rest.RESTClient {
	if core == nil {
		return nil
	}
	rc, _ := core.CoreV1().RESTClient().(*rest.RESTClient)
	return rc
}

// typedPage reads one page of a list of a custom resource into its Go
// type, each object slimmed as a cache slims it. It reports false, having
// added nothing, for a kind it has no type for, for a page it could not
// read, and for a page that holds
// a quantity-like text it would hand resource.ParseQuantity unchecked
// (longer than size.MaxLength, or with an exponent): the unstructured
// path checks those first, and says where they are.
func typedPage(ctx context.Context, rc *rest.RESTClient, k state.Kind, ns string, opts metav1.ListOptions, into *state.State) (string, bool, error) {
	decode, ok := typedKinds[k]
	if !ok {
		return "", false, nil
	}
	info := kinds.Of(k)
	path := []string{"/apis", info.GVK.Group, info.GVK.Version}
	if ns != "" {
		path = append(path, "namespaces", ns)
	}
	req := rc.Get().AbsPath(append(path, info.Resource)...).SetHeader("Accept", "application/json").
		Param("limit", strconv.FormatInt(opts.Limit, 10))
	if opts.Continue != "" {
		req = req.Param("continue", opts.Continue)
	}
	raw, err := req.Do(ctx).Raw()
	if err != nil || suspectQuantity(raw) {
		// A failed page is read again the dynamic client's way, whose
		// errors carry the server's Status as the rest of the reads'.
		return "", false, nil
	}
	next, err := decode(raw, into)
	return next, true, err
}

var typedKinds = map[state.Kind]func([]byte, *state.State) (string, error){
	state.DataVolume:              func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.DataVolumes) },
	state.StorageProfile:          func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.StorageProfiles) },
	state.CDI:                     func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.CDIs) },
	state.CDIConfig:               func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.CDIConfigs) },
	state.VolumeSnapshotClass:     func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.VolumeSnapshotClasses) },
	state.DataSource:              func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.DataSources) },
	state.VirtualMachine:          func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.VirtualMachines) },
	state.KubevirtMachineTemplate: func(b []byte, st *state.State) (string, error) { return decodeInto(b, &st.KubevirtMachineTemplates) },
}

// decodeInto decodes a list page into its items' type, slims each, and
// appends them to into; it returns the page's continue token.
func decodeInto[T any](raw []byte, into *[]T) (string, error) {
	var l struct {
		Metadata metav1.ListMeta `json:"metadata"`
		Items    []T             `json:"items"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return "", err
	}
	for i := range l.Items {
		if _, err := slim.Transform(&l.Items[i]); err != nil {
			return "", err
		}
	}
	*into = append(*into, l.Items...)
	return l.Metadata.Continue, nil
}

// typedEvents decode one event of a watch of a custom resource (a line
// of its body) into the kind's Go type, in one pass: an ADDED object is
// slimmed and appended to the State. Each returns the event's type and,
// for a bookmark, whether it ends the initial objects.
var typedEvents = map[state.Kind]func([]byte, *state.State) (string, bool, error){
	state.DataVolume: func(b []byte, st *state.State) (string, bool, error) {
		return decodeWire(b, &st.DataVolumes, (*streamedDataVolume).dataVolume)
	},
	state.StorageProfile: func(b []byte, st *state.State) (string, bool, error) { return decodeEvent(b, &st.StorageProfiles) },
	state.CDI:            func(b []byte, st *state.State) (string, bool, error) { return decodeEvent(b, &st.CDIs) },
	state.CDIConfig:      func(b []byte, st *state.State) (string, bool, error) { return decodeEvent(b, &st.CDIConfigs) },
	state.VolumeSnapshotClass: func(b []byte, st *state.State) (string, bool, error) {
		return decodeEvent(b, &st.VolumeSnapshotClasses)
	},
	state.DataSource:     func(b []byte, st *state.State) (string, bool, error) { return decodeEvent(b, &st.DataSources) },
	state.VirtualMachine: func(b []byte, st *state.State) (string, bool, error) { return decodeEvent(b, &st.VirtualMachines) },
	state.KubevirtMachineTemplate: func(b []byte, st *state.State) (string, bool, error) {
		return decodeEvent(b, &st.KubevirtMachineTemplates)
	},
}

func decodeEvent[T any, P interface {
	*T
	metav1.Object
}](raw []byte, into *[]T) (string, bool, error) {
	return decodeWire[T, T, P](raw, into, func(o *T) *T { return o })
}

// decodeWire is decodeEvent for an object decoded as W, which object
// makes a T of.
func decodeWire[W, T any, P interface {
	*T
	metav1.Object
}](raw []byte, into *[]T, object func(*W) *T) (string, bool, error) {
	var ev struct {
		Type   string `json:"type"`
		Object W      `json:"object"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return "", false, err
	}
	o := object(&ev.Object)
	switch ev.Type {
	case "ADDED":
		if _, err := slim.Transform(o); err != nil {
			return "", false, err
		}
		*into = append(*into, *o)
	case "BOOKMARK":
		return ev.Type, P(o).GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true", nil
	}
	return ev.Type, false, nil
}

// streamedDataVolume is a DataVolume as a stream reads it: its
// managedFields (every writer's fields, two fifths of a served DataVolume)
// are passed over, never decoded, since slim drops them and no plan
// reads them.
type streamedDataVolume struct {
	cdiv1.DataVolume
	// Metadata, at a shallower depth, is decoded in place of the
	// DataVolume's; its ManagedFields in place of ObjectMeta's.
	Metadata struct {
		metav1.ObjectMeta
		ManagedFields passedOver `json:"managedFields,omitempty"`
	} `json:"metadata"`
}

func (d *streamedDataVolume) dataVolume() *cdiv1.DataVolume {
	d.DataVolume.ObjectMeta = d.Metadata.ObjectMeta
	return &d.DataVolume
}

// passedOver is a JSON value read and left: encoding/json only finds where
// it ends.
type passedOver struct{}

func (*passedOver) UnmarshalJSON([]byte) error { return nil }

// typedStream reads every object of a custom resource in namespace ns as
// a watch that first sends the objects there are (a streaming list,
// sendInitialEvents), into its Go type, each slimmed: the API server
// answers it from its watch cache, where the pages of a list whose
// resource version its cache no longer holds are each read and decoded
// from etcd, which for 100,000 DataVolumes is most of the server's work.
// It reports false, having added nothing, for a kind it has no type for,
// a server that does not stream lists (it refuses sendInitialEvents), a
// watch it may not make, any failure, and an object that holds a
// quantity-like text typedPage would not decode either: the paged list
// then reads the kind, and says why it could not. The API server writes
// an event a line, compact; each is checked for such a text, then
// decoded once (a body framed otherwise is not decoded, and reads by
// pages).
func typedStream(ctx context.Context, rc *rest.RESTClient, k state.Kind, ns string, into *state.State) bool {
	decode, ok := typedEvents[k]
	if !ok {
		return false
	}
	info := kinds.Of(k)
	path := []string{"/apis", info.GVK.Group, info.GVK.Version}
	if ns != "" {
		path = append(path, "namespaces", ns)
	}
	body, err := rc.Get().AbsPath(append(path, info.Resource)...).SetHeader("Accept", "application/json").
		Param("watch", "true").Param("sendInitialEvents", "true").
		Param("resourceVersionMatch", string(metav1.ResourceVersionMatchNotOlderThan)).
		Param("allowWatchBookmarks", "true").Stream(ctx)
	if err != nil {
		return false
	}
	defer body.Close()
	part := &state.State{}
	lines, scratch := lineReader(body), []byte(nil)
	for {
		var line []byte
		line, scratch, err = readLine(lines, scratch)
		if len(bytes.TrimSpace(line)) > 0 {
			// The event is checked whole before it is decoded, once.
			if suspectQuantity(line) {
				return false
			}
			typ, end, err := decode(line, part)
			switch {
			case err != nil:
				return false
			case typ == "ADDED":
			case typ == "BOOKMARK":
				if end {
					appendState(into, part)
					return true
				}
			default:
				// An error, or a change before the initial objects ended.
				return false
			}
		}
		if err != nil {
			return false // the stream ended before the initial objects did
		}
	}
}

// lineReader reads body line by line: through its own buffer where
// BufferWatches gave it one.
func lineReader(body io.Reader) *bufio.Reader {
	if b, ok := body.(bufferedBody); ok {
		return b.Reader
	}
	return bufio.NewReaderSize(body, watchBuffer)
}

// readLine reads the next line of r, with its newline: a slice of r's
// buffer, or of scratch (returned, to be passed again) for a line longer
// than the buffer. It is valid until the next read.
func readLine(r *bufio.Reader, scratch []byte) ([]byte, []byte, error) {
	line, err := r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, scratch, err
	}
	scratch = append(scratch[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = r.ReadSlice('\n')
		scratch = append(scratch, line...)
	}
	return scratch, scratch, err
}

// suspectQuantity reports whether raw, JSON, holds a string or a number
// that reads as a quantity and that size.Check would have to judge: past
// size.MaxLength, or with a decimal exponent. It errs on the side of
// suspicion: a suspect page is only read the slower way.
func suspectQuantity(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(raw) {
				return true
			}
			if quantityLike(raw[i+1 : j]) {
				return true
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && (raw[j] == '-' || raw[j] == '+' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || (raw[j] >= '0' && raw[j] <= '9')) {
				j++
			}
			if quantityLike(raw[i:j]) {
				return true
			}
			i = j - 1
		}
	}
	return false
}

// quantityLike reports a text that is a quantity's shape (a sign,
// digits and a point, then nothing, a suffix or a decimal exponent) and
// that is longer than size.MaxLength or has an exponent.
func quantityLike(s []byte) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && (s[i] == '.' || (s[i] >= '0' && s[i] <= '9')) {
		if s[i] != '.' {
			digits++
		}
		i++
	}
	if digits == 0 {
		return false
	}
	switch rest := string(s[i:]); {
	case rest == "" || suffixes[rest]:
		return len(s) > size.MaxLength
	case rest[0] == 'e' || rest[0] == 'E':
		exp := strings.TrimLeft(rest[1:], "+-")
		return exp != "" && len(rest)-len(exp) <= 2 && strings.Trim(exp, "0123456789") == ""
	}
	return false
}

// suffixes are a quantity's binary and decimal suffixes.
var suffixes = map[string]bool{"Ki": true, "Mi": true, "Gi": true, "Ti": true, "Pi": true, "Ei": true,
	"n": true, "u": true, "m": true, "k": true, "M": true, "G": true, "T": true, "P": true, "E": true}
