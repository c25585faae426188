package manifests

import (
	"fmt"
	"io"
	"os"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Read decodes one file into a State. A file is a full observation: every
// kind the planner reads is observed, as empty when the file holds none of
// it. Objects of other kinds (a kubectl get all dump) are skipped with a
// Note; an object repeated in the file is kept as its later copy, with a
// Note. Errors are *Error (the file and line of the first bad document) or
// the reader's.
func Read(name string, r io.Reader) (*state.State, []Note, error) {
	var c collector
	if err := c.add(name, r); err != nil {
		return nil, nil, err
	}
	st, err := c.state()
	if err != nil {
		return nil, nil, err
	}
	return st, c.notes, nil
}

// ReadFiles reads several files into one State, as if they were one: a
// later file's copy of an object replaces an earlier one's. With no path it
// returns a State that observed nothing.
func ReadFiles(paths ...string) (*state.State, []Note, error) {
	if len(paths) == 0 {
		return &state.State{}, nil, nil
	}
	var c collector
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, nil, err
		}
		err = c.add(p, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, nil, err
		}
	}
	st, err := c.state()
	if err != nil {
		return nil, nil, err
	}
	return st, c.notes, nil
}

// collector gathers the objects of the planner's kinds across files, the
// later copy of an object replacing the earlier in place.
type collector struct {
	objs  []located
	index map[state.Ref]int
	notes []Note
}

type located struct {
	file string
	Document
	kind kinds.Info
}

func (c *collector) add(name string, r io.Reader) error {
	docs, err := Documents(name, r)
	if err != nil {
		return err
	}
	if c.index == nil {
		c.index = map[state.Ref]int{}
	}
	for _, d := range docs {
		o := d.Object
		info, ok := kinds.ByGVK(o.GroupVersionKind())
		if !ok {
			c.notes = append(c.notes, Note{File: name, Line: d.Line, Reason: KindNotRead,
				APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()})
			continue
		}
		if err := identified(info, d); err != nil {
			return &Error{File: name, Line: d.Line, Problem: InvalidObject, Err: err}
		}
		ns := o.GetNamespace()
		if !info.Namespaced {
			ns = ""
		}
		ref := state.Ref{Kind: info.Kind, Namespace: ns, Name: o.GetName()}
		l := located{file: name, Document: d, kind: info}
		if i, seen := c.index[ref]; seen {
			prev := c.objs[i]
			c.notes = append(c.notes, Note{File: prev.file, Line: prev.Line, Reason: Superseded,
				APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: ns, Name: o.GetName(),
				By: Position{File: name, Line: d.Line}})
			c.objs[i] = l
			continue
		}
		c.index[ref] = len(c.objs)
		c.objs = append(c.objs, l)
	}
	return nil
}

// identified checks what kubectl get always prints and the State keys
// objects by: a name, and a namespace for a namespaced kind.
func identified(info kinds.Info, d Document) error {
	switch {
	case d.Object.GetName() == "":
		return fmt.Errorf("%s without metadata.name", info.GVK.Kind)
	case info.Namespaced && d.Object.GetNamespace() == "":
		return fmt.Errorf("%s %s without metadata.namespace", info.GVK.Kind, d.Object.GetName())
	}
	return nil
}

func (c *collector) state() (*state.State, error) {
	st := &state.State{Observed: state.AllKinds}
	for _, l := range c.objs {
		if err := kinds.AppendUnstructured(st, l.kind.Kind, l.Object.Object); err != nil {
			return nil, &Error{File: l.file, Line: l.Line, Problem: InvalidObject,
				Err: fmt.Errorf("%s %s: %w", l.kind.GVK.Kind, l.Object.GetName(), err)}
		}
	}
	kinds.Normalize(st)
	return st, nil
}
