package manifests

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Read decodes one file into a State. A file is a full observation: every
// kind the planner reads is observed, as empty when the file holds none of
// it. Objects of other kinds (a kubectl get all dump) are skipped with a
// Note; an object repeated in the file is kept as its later copy, with a
// Note. Errors are *Error (the file and line of the first bad document) or
// the reader's.
//
// The State keeps of each object what the planner reads (see Result), and
// its objects share equal small maps and strings: treat it as read-only,
// as the planner does, or DeepCopy an object before changing it.
func Read(name string, r io.Reader) (*state.State, []Note, error) {
	res, err := ReadResult(name, r)
	if err != nil {
		return nil, nil, err
	}
	return res.State, res.Notes, nil
}

// ReadFiles reads several files into one State, as if they were one: a
// later file's copy of an object replaces an earlier one's. With no path it
// returns a State that observed nothing.
func ReadFiles(paths ...string) (*state.State, []Note, error) {
	res, err := ReadFilesResult(paths...)
	if err != nil {
		return nil, nil, err
	}
	return res.State, res.Notes, nil
}

// Result is what Read makes of its input, and what the input held.
//
// Of every object the State keeps what the planner reads: the object's
// metadata but its managed fields, owner references, finalizers, uid and
// resource version; a PVC's spec, and of its status the phase and the
// capacity; the whole of every other kind.
type Result struct {
	State *state.State
	Notes []Note
	// Held is the set of kinds the input held at least one object of
	// (in the version the planner reads): what a --state file observes
	// by SPEC 11, before the user names more.
	Held state.Kind
	// Objects counts the objects of the planner's kinds in State, an
	// object repeated counted once.
	Objects int
}

// ReadResult is Read, with what the input held.
func ReadResult(name string, r io.Reader) (Result, error) {
	var c collector
	if err := c.add(name, r); err != nil {
		return Result{}, err
	}
	return c.result()
}

// ReadFilesResult is ReadFiles, with what the files held.
func ReadFilesResult(paths ...string) (Result, error) {
	if len(paths) == 0 {
		return Result{State: &state.State{}}, nil
	}
	var c collector
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return Result{}, err
		}
		err = c.add(p, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return Result{}, err
		}
	}
	return c.result()
}

// collector gathers the objects of the planner's kinds across files, the
// later copy of an object replacing the earlier in place.
type collector struct {
	objs  []located
	index map[state.Ref]int
	notes []Note
	held  state.Kind
}

type located struct {
	file string
	object
	kind kinds.Info
}

// object is one object of a file, decoded by a codec (typed), by the
// general path (u), or left as JSON (json) for the general path to convert.
type object struct {
	line                              int
	apiVersion, kind, namespace, name string
	typed                             any
	u                                 map[string]any
	json                              []byte
	// untyped is an item of a typed List, which a worker could not know
	// the kind of: it is decoded when the State is made.
	untyped bool
}

func (c *collector) add(name string, r io.Reader) error {
	objs, err := readObjects(name, r)
	if err != nil {
		return err
	}
	if c.index == nil {
		c.index = map[state.Ref]int{}
	}
	for _, o := range objs {
		info, ok := kinds.ByGVK(gvkOf(o.apiVersion, o.kind))
		if !ok {
			c.notes = append(c.notes, Note{File: name, Line: o.line, Reason: KindNotRead,
				APIVersion: o.apiVersion, Kind: o.kind, Namespace: o.namespace, Name: o.name})
			continue
		}
		if err := identified(info, o.name, o.namespace); err != nil {
			return &Error{File: name, Line: o.line, Problem: InvalidObject, Err: err}
		}
		c.held |= info.Kind
		ns := o.namespace
		if !info.Namespaced {
			ns = ""
		}
		ref := state.Ref{Kind: info.Kind, Namespace: ns, Name: o.name}
		l := located{file: name, object: o, kind: info}
		if i, seen := c.index[ref]; seen {
			prev := c.objs[i]
			c.notes = append(c.notes, Note{File: prev.file, Line: prev.line, Reason: Superseded,
				APIVersion: o.apiVersion, Kind: o.kind, Namespace: ns, Name: o.name,
				By: Position{File: name, Line: o.line}})
			c.objs[i] = l
			continue
		}
		c.index[ref] = len(c.objs)
		c.objs = append(c.objs, l)
	}
	return nil
}

// gvkOf is the kind an object's apiVersion and kind name, as
// unstructured.Unstructured.GroupVersionKind reads them.
func gvkOf(apiVersion, kind string) schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionKind{}
	}
	return gv.WithKind(kind)
}

// identified checks what kubectl get always prints and the State keys
// objects by: a name, and a namespace for a namespaced kind.
func identified(info kinds.Info, name, namespace string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s without metadata.name", info.GVK.Kind)
	case info.Namespaced && namespace == "":
		return fmt.Errorf("%s %s without metadata.namespace", info.GVK.Kind, name)
	}
	return nil
}

func (c *collector) result() (Result, error) {
	st := &state.State{Observed: state.AllKinds}
	counts := map[state.Kind]int{}
	for _, l := range c.objs {
		counts[l.kind.Kind]++
	}
	for k, n := range counts {
		if cd, ok := codecs[k]; ok {
			cd.reserve(st, n)
		}
	}
	var w *worker
	for _, l := range c.objs {
		cd, typed := codecs[l.kind.Kind]
		if l.typed == nil && l.untyped && typed {
			if w == nil {
				w = newWorker()
			}
			if obj, err := cd.decode(w, l.json); err == nil {
				l.typed = obj
			}
		}
		if l.typed != nil {
			cd.append(st, l.typed)
			continue
		}
		m := l.u
		if m == nil {
			if err := utiljson.Unmarshal(l.json, &m); err != nil {
				return Result{}, &Error{File: l.file, Line: l.line, Problem: InvalidObject, Err: err}
			}
			if l.untyped {
				u := unstructured.Unstructured{Object: m}
				u.SetAPIVersion(l.apiVersion)
				u.SetKind(l.kind.GVK.Kind)
			}
		}
		if err := kinds.AppendUnstructured(st, l.kind.Kind, m); err != nil {
			return Result{}, &Error{File: l.file, Line: l.line, Problem: InvalidObject,
				Err: fmt.Errorf("%s %s: %w", l.kind.GVK.Kind, l.name, err)}
		}
	}
	for _, cd := range codecs {
		cd.trimAll(st)
	}
	kinds.Normalize(st)
	return Result{State: st, Notes: c.notes, Held: c.held, Objects: len(c.objs)}, nil
}

// readObjects reads the objects of one file, in order: each document the
// splitter cut is decoded by the workers, and each it could not, or whose
// units did not decode, by the general path (Documents), which says what
// is wrong with it.
func readObjects(name string, r io.Reader) ([]object, error) {
	ra, size, err := readerAt(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	p := newPool()
	sp := splitter{src: newSource(ra, size), send: p.send}
	err = sp.run()
	p.wait()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var out []object
	for _, d := range sp.docs {
		if objs, ok := fastObjects(d); ok {
			out = append(out, objs...)
			continue
		}
		raw, err := sp.src.readRange(d.start, d.end)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		docs, err := documents(name, raw, d.line)
		if err != nil {
			return nil, err
		}
		for _, doc := range docs {
			o := doc.Object
			out = append(out, object{line: doc.Line, apiVersion: o.GetAPIVersion(), kind: o.GetKind(),
				namespace: o.GetNamespace(), name: o.GetName(), u: o.Object})
		}
	}
	if sp.badSep > 0 {
		return nil, &Error{File: name, Line: sp.badSep, Problem: Syntax, Err: separatorError(sp.badSepText)}
	}
	return out, nil
}

// fastObjects is a document's objects as the workers decoded them, or
// false when the general path must read it.
func fastObjects(d *document) ([]object, bool) {
	if d.slow {
		return nil, false
	}
	if !d.hasHead {
		return nil, true // blank lines and comments
	}
	h := d.head.get()
	if !h.ok || (h.id.has&hasItems != 0) != (d.list && h.kind == jsonDocUnit) {
		return nil, false
	}
	if !d.list {
		o := objectOf(h)
		return []object{o}, o.apiVersion != "" && o.kind != ""
	}
	if h.id.kind == "" || (h.kind == jsonDocUnit && h.items != len(d.items)) {
		return nil, false // a List without a kind is no object; the general path says so
	}
	out := make([]object, len(d.items))
	for i, ref := range d.items {
		u := ref.get()
		if !u.ok {
			return nil, false
		}
		o := objectOf(u)
		if o.kind == "" && o.apiVersion == "" {
			o.apiVersion, o.kind, o.untyped = h.id.apiVersion, itemKind(h.id.kind), true
		}
		if o.apiVersion == "" || o.kind == "" {
			return nil, false
		}
		out[i] = o
	}
	return out, true
}

func objectOf(u *unit) object {
	return object{line: u.line, apiVersion: u.id.apiVersion, kind: u.id.kind,
		namespace: u.id.namespace, name: u.id.name, typed: u.obj, json: u.json}
}

// readerAt gives the reader's bytes from where it stands as an
// io.ReaderAt, reading them into memory only if it is no file or buffer.
func readerAt(r io.Reader) (io.ReaderAt, int64, error) {
	switch v := r.(type) {
	case *bytes.Reader:
		start := v.Size() - int64(v.Len())
		_, err := v.Seek(0, io.SeekEnd)
		return io.NewSectionReader(v, start, v.Size()-start), v.Size() - start, err
	case *strings.Reader:
		start := v.Size() - int64(v.Len())
		_, err := v.Seek(0, io.SeekEnd)
		return io.NewSectionReader(v, start, v.Size()-start), v.Size() - start, err
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			if start, err := v.Seek(0, io.SeekCurrent); err == nil {
				_, err := v.Seek(0, io.SeekEnd)
				return io.NewSectionReader(v, start, fi.Size()-start), fi.Size() - start, err
			}
		}
	}
	data, err := io.ReadAll(r)
	return bytes.NewReader(data), int64(len(data)), err
}
