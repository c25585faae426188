package manifests

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Result is what Read makes of its input, and what the input held.
//
// Of every object the State keeps the whole object but what only the API
// server reads of it: its managed fields, owner references, finalizers,
// uid and resource version.
type Result struct {
	State *state.State
	Notes []Note
	// Held is the set of kinds the input held at least one object of
	// (in a version the planner reads): what a --state file observes
	// before the user names more.
	Held state.Kind
	// unread is the set of kinds the input held an object of in a
	// version the planner does not read (each noted VersionNotRead): the
	// State lacks those objects, so it does not observe their kinds.
	unread state.Kind
	// objects counts the objects of the planner's kinds in State, an
	// object repeated counted once.
	objects int
}

// Observed is what the input observes for a caller that takes it to cover only
// the kinds it holds an object of and those the user names: Held and named, but
// never a kind the input held only in a version the planner does not read
// (each noted VersionNotRead), whose objects the State lacks whatever the user
// says.
// For example a file holding PVCs and a cdi.kubevirt.io/v1alpha1 DataVolume,
// with DataVolume and CDIConfig named, observes
// PersistentVolumeClaim|CDIConfig.
func (r Result) Observed(named state.Kind) state.Kind { return (r.Held | named) &^ r.unread }

// Read decodes one file into a State (Result.State), with its notes and
// what it held. A file is a full observation: every
// kind the planner reads is observed, as empty when the file holds none of
// it, but a kind the file holds an object of in a version the planner does
// not read (a cdi.kubevirt.io/v1alpha1 DataVolume): that object is not in
// the State, so the kind is not observed, and a VersionNotRead Note says
// where it is. Objects of other kinds (a kubectl get all dump) are skipped
// with a KindNotRead Note; an object repeated in the file is kept as its
// later copy, with a Note. Errors are *Error (the file and line of the
// first bad document) or the reader's.
//
// The State keeps of each object what the planner reads (see Result);
// its objects share no map, so a caller may change one without changing
// another.
func Read(name string, r io.Reader) (Result, error) {
	var c collector
	if err := c.add(name, r); err != nil {
		return Result{}, err
	}
	return c.result()
}

// ReadFiles reads several files into one State, as if they were one: a
// later file's copy of an object replaces an earlier one's. With no path it
// returns a State that observed nothing.
func ReadFiles(paths ...string) (Result, error) {
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
	objs   []located
	index  map[state.Ref]int
	notes  []Note
	held   state.Kind
	unread state.Kind
	// st holds the objects the workers decoded, as they come; result
	// drops those not kept and adds the general path's.
	st *state.State
}

// located is an object kept, and where it came from.
type located struct {
	file string
	line int
	kind state.Kind
	name string
	slot int      // in the State, or -1 for the general path to convert
	gen  *general // what the general path converts
}

// general is an object the general path converts into its type.
type general struct {
	u          map[string]any // read by the general path
	json       []byte         // or left as JSON
	apiVersion string
	// untyped is an item of a typed List, which a worker could not know
	// the kind of: it is decoded when the State is made.
	untyped bool
}

// object is one object of a file as the splitter and the workers, or the
// general path, read it.
type object struct {
	line                              int
	apiVersion, kind, namespace, name string
	slot                              int
	u                                 map[string]any
	json                              []byte
	untyped                           bool
}

func (c *collector) add(name string, r io.Reader) error {
	if c.st == nil {
		c.st = &state.State{Observed: state.AllKinds}
	}
	if c.index == nil {
		c.index = map[state.Ref]int{}
	}
	return readObjects(name, r, c.st, func(o object) error { return c.take(name, o) })
}

// take keeps one object of the file name, or notes why not.
func (c *collector) take(name string, o object) error {
	gvk := gvkOf(o.apiVersion, o.kind)
	info, ok := kinds.ByGVK(gvk)
	if !ok {
		reason := KindNotRead
		if other, same := kinds.ByGroupKind(gvk.GroupKind()); same {
			// An object of a kind the State holds, which it cannot
			// hold: what the file says of that kind is not all.
			reason = VersionNotRead
			c.unread |= other.Kind
		}
		c.notes = append(c.notes, Note{Position: Position{File: name, Line: o.line}, Reason: reason,
			APIVersion: o.apiVersion, Kind: o.kind, Namespace: o.namespace, Name: o.name})
		return nil
	}
	if err := identified(info, o.name, o.namespace); err != nil {
		return &Error{Position: Position{File: name, Line: o.line}, Problem: InvalidObject, err: err}
	}
	c.held |= info.Kind
	ns := o.namespace
	if !info.Namespaced {
		ns = ""
	}
	ref := state.Ref{Kind: info.Kind, Namespace: ns, Name: o.name}
	l := located{file: name, line: o.line, kind: info.Kind, name: o.name, slot: o.slot}
	if o.slot < 0 {
		l.gen = &general{u: o.u, json: o.json, apiVersion: o.apiVersion, untyped: o.untyped}
	}
	if i, seen := c.index[ref]; seen {
		prev := c.objs[i]
		c.notes = append(c.notes, Note{Position: Position{File: prev.file, Line: prev.line}, Reason: Superseded,
			APIVersion: o.apiVersion, Kind: o.kind, Namespace: ns, Name: o.name,
			By: Position{File: name, Line: o.line}})
		c.objs[i] = l
		return nil
	}
	c.index[ref] = len(c.objs)
	c.objs = append(c.objs, l)
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
	st := c.st
	if st == nil {
		st = &state.State{Observed: state.AllKinds}
	}
	alive := map[state.Kind][]bool{}
	for _, l := range c.objs {
		if l.slot >= 0 {
			a := alive[l.kind]
			if len(a) <= l.slot {
				a = append(a, make([]bool, l.slot+1-len(a))...)
			}
			a[l.slot] = true
			alive[l.kind] = a
		}
	}
	for k, cd := range codecs {
		cd.compact(st, alive[k])
	}
	var w *worker
	for _, l := range c.objs {
		if l.slot >= 0 {
			continue
		}
		info, g := kinds.Of(l.kind), l.gen
		if cd, typed := codecs[l.kind]; typed && g.untyped {
			if w == nil {
				w = newWorker()
			}
			if obj, err := cd.decode(w, g.json); err == nil {
				cd.store(st, obj)
				continue
			}
		}
		m := g.u
		if m == nil {
			if err := utiljson.Unmarshal(g.json, &m); err != nil {
				return Result{}, &Error{Position: Position{File: l.file, Line: l.line}, Problem: InvalidObject, err: err}
			}
			if g.untyped {
				u := unstructured.Unstructured{Object: m}
				u.SetAPIVersion(g.apiVersion)
				u.SetKind(info.GVK.Kind)
			}
		}
		if err := kinds.AppendUnstructured(st, l.kind, m); err != nil {
			return Result{}, &Error{Position: Position{File: l.file, Line: l.line}, Problem: InvalidObject,
				err: fmt.Errorf("%s %s: %w", info.GVK.Kind, l.name, err)}
		}
	}
	for _, cd := range codecs {
		cd.trimAll(st)
	}
	kinds.Normalize(st)
	st.Observed = state.AllKinds &^ c.unread
	return Result{State: st, Notes: c.notes, Held: c.held, unread: c.unread, objects: len(c.objs)}, nil
}

// readObjects reads the objects of one file and hands them to take, in
// order: each document the splitter cut is decoded by the workers, and
// each it could not, or whose units did not decode, by the general path
// (Documents), which says what is wrong with it. Every document is read
// before take sees an object, as Documents did before an object was kept.
func readObjects(name string, r io.Reader, st *state.State, take func(object) error) error {
	ra, size, err := readerAt(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	p := newPool(st)
	sp := splitter{src: newSource(ra, size), send: p.send, newBatch: p.newBatch}
	err = sp.run()
	p.wait()
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	general := map[*document][]Document{}
	for _, d := range sp.docs {
		if fastDocument(d) {
			continue
		}
		if u := repeatIn(d); u != nil {
			return u.dup.in(name, u.line)
		}
		raw, err := sp.src.readRange(d.start, d.end)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		docs, err := documents(name, raw, d.line)
		if err != nil {
			return err
		}
		general[d] = docs
	}
	if sp.badSep > 0 {
		return &Error{Position: Position{File: name, Line: sp.badSep}, Problem: Syntax, err: separatorError(sp.badSepText)}
	}
	for _, d := range sp.docs {
		if docs, slow := general[d]; slow {
			for _, doc := range docs {
				o := doc.Object
				if err := take(object{line: doc.Line, apiVersion: o.GetAPIVersion(), kind: o.GetKind(),
					namespace: o.GetNamespace(), name: o.GetName(), slot: -1, u: o.Object}); err != nil {
					return err
				}
			}
			continue
		}
		if !d.hasHead {
			continue
		}
		if !d.list {
			if err := take(objectOf(d.head.get())); err != nil {
				return err
			}
			continue
		}
		h := d.head.get()
		for _, ref := range d.items {
			if err := take(itemOf(ref.get(), h)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fastDocument reports whether the workers read the whole document, as
// the general path would have.
func fastDocument(d *document) bool { return workersRead(d, func(u *unit) bool { return u.ok }) }

// repeatIn is the first unit of the document that repeats a key, when the
// workers read the whole document but for such repeats: the general path
// would refuse the document for that key first, since a key is refused
// before anything else of its document is looked at. A List's own keys
// never say where a repeat is (worker.unit), so the first unit that does
// is the first in the file.
func repeatIn(d *document) *unit {
	var first *unit
	read := func(u *unit) bool {
		if u.dup != nil && first == nil {
			first = u
		}
		return u.ok || u.dup != nil
	}
	if !workersRead(d, read) {
		return nil
	}
	return first
}

// workersRead reports whether the workers read the whole document, each
// unit as read says, in the document's order.
func workersRead(d *document, read func(*unit) bool) bool {
	if d.slow {
		return false
	}
	if !d.hasHead {
		return true // blank lines and comments
	}
	h := d.head.get()
	if !read(h) || (h.id.has&hasItems != 0) != (d.list && h.kind == jsonDocUnit) {
		return false
	}
	// The decoder takes an object or List whose apiVersion does not parse
	// for one without a kind; the general path says so.
	if gvkOf(h.id.apiVersion, h.id.kind).Kind == "" {
		return false
	}
	if !d.list {
		return h.id.apiVersion != ""
	}
	if h.kind == jsonDocUnit && h.items != len(d.items) {
		return false
	}
	for _, ref := range d.items {
		u := ref.get()
		if !read(u) {
			return false
		}
		if o := itemOf(u, h); o.apiVersion == "" || o.kind == "" {
			return false
		}
	}
	return true
}

// itemOf is an item of the List whose own keys are h: an item without
// apiVersion and kind is of the List's.
func itemOf(u, h *unit) object {
	o := objectOf(u)
	if o.kind == "" && o.apiVersion == "" {
		o.apiVersion, o.kind, o.untyped = h.id.apiVersion, itemKind(h.id.kind), true
	}
	return o
}

func objectOf(u *unit) object {
	return object{line: u.line, apiVersion: u.id.apiVersion, kind: u.id.kind,
		namespace: u.id.namespace, name: u.id.name, slot: u.slot, json: u.json}
}

// readerAt gives the reader's bytes from where it stands as an
// io.ReaderAt, reading them into memory only if it is no regular file and
// no buffer that reads at an offset (a *bytes.Reader, *strings.Reader,
// *io.SectionReader or any reader with ReadAt, Seek and Size).
func readerAt(r io.Reader) (io.ReaderAt, int64, error) {
	switch v := r.(type) {
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			if start, err := v.Seek(0, io.SeekCurrent); err == nil {
				_, err := v.Seek(0, io.SeekEnd)
				return io.NewSectionReader(v, start, fi.Size()-start), fi.Size() - start, err
			}
		}
	case sizedReaderAt:
		start, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, 0, err
		}
		if _, err := v.Seek(0, io.SeekEnd); err != nil {
			return nil, 0, err
		}
		return io.NewSectionReader(v, start, v.Size()-start), v.Size() - start, nil
	}
	data, err := io.ReadAll(r)
	return bytes.NewReader(data), int64(len(data)), err
}

// sizedReaderAt is a buffer read at offsets: its Seek says where its
// reader stands, Size how long it is.
type sizedReaderAt interface {
	io.ReaderAt
	io.Seeker
	Size() int64
}
