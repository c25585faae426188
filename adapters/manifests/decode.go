package manifests

import (
	"runtime"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// pool decodes batches on every core while the splitter reads on, and
// stores each object decoded into its kind's slice of st as the batch is
// done: the State grows as the file is read, with no second copy of it at
// the end.
type pool struct {
	work     chan *batch
	done     chan *batch
	free     chan []byte // batches' bytes, decoded, for the splitter to fill again
	wg       sync.WaitGroup
	gathered chan struct{}
}

func newPool(st *state.State) *pool {
	n := runtime.GOMAXPROCS(0)
	p := &pool{work: make(chan *batch, 2*n), done: make(chan *batch, 2*n), free: make(chan []byte, 4*n), gathered: make(chan struct{})}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w := newWorker()
			for b := range p.work {
				w.batch(b)
				select {
				case p.free <- b.data[:0]:
				default:
				}
				b.data = nil
				p.done <- b
			}
		}()
	}
	go func() {
		defer close(p.gathered)
		for b := range p.done {
			for i := range b.units {
				u := &b.units[i]
				if u.obj != nil {
					info, _ := kinds.ByGVK(gvkOf(u.id.apiVersion, u.id.kind))
					u.slot, u.obj = codecs[info.Kind].store(st, u.obj), nil
				}
			}
		}
	}()
	return p
}

func (p *pool) send(b *batch) { p.work <- b }

// newBatch is an empty batch, on the bytes of one decoded if there is one.
func (p *pool) newBatch() *batch {
	b := &batch{units: make([]unit, 0, batchUnits)}
	select {
	case b.data = <-p.free:
	default:
		b.data = make([]byte, 0, batchBytes+batchBytes/4)
	}
	return b
}

// wait returns once every batch sent is decoded and stored.
func (p *pool) wait() {
	close(p.work)
	p.wg.Wait()
	close(p.done)
	<-p.gathered
}

// batch decodes every unit of b.
func (w *worker) batch(b *batch) {
	for i := range b.units {
		w.unit(b.data, &b.units[i])
	}
}

func (w *worker) unit(data []byte, u *unit) {
	src := data[u.start:u.end]
	var js []byte
	var dup *duplicateKeyError
	switch u.kind {
	case entryUnit:
		js, u.id, u.ok = w.tc.transcodeEntry(w.json[:0], src)
		w.json, dup = js, w.tc.dup
	case yamlDocUnit:
		js, u.id, u.ok = w.tc.transcodeDocument(w.json[:0], src)
		w.json, dup = js, w.tc.dup
	case jsonItemUnit:
		u.id, u.ok = w.js.scanItem(src)
		js, dup = src, w.js.dup
	case jsonDocUnit:
		var s *jsonScanner
		s, u.ok = scanJSONDocument(src, 0, 1)
		u.id, u.items, js, dup = s.id, len(s.items), src, s.dup
	}
	if dup != nil {
		// Read whole but for the repeat: the refusal is this unit's,
		// unless it is a List's own keys, whose lines are not the
		// file's in a row; the general path places those.
		if u.ok && !u.listHead {
			u.dup = dup
		}
		u.ok = false
	}
	u.id.apiVersion, u.id.kind, u.id.namespace = w.intern(u.id.apiVersion), w.intern(u.id.kind), w.intern(u.id.namespace)
	if !u.ok || u.listHead || u.id.has&hasItems != 0 {
		return // a List's own keys are not an object to decode
	}
	if u.id.kind == "" && u.id.apiVersion == "" {
		u.json = append([]byte(nil), js...) // an item of a typed List, whose kind comes last
		return
	}
	info, read := kinds.ByGVK(schema.FromAPIVersionAndKind(u.id.apiVersion, u.id.kind))
	if !read {
		return
	}
	if c, ok := codecs[info.Kind]; ok {
		obj, err := c.decode(w, js)
		if err == nil {
			u.obj, u.id.name, u.id.namespace = obj, w.name, w.namespace
			return
		}
	}
	// The general path converts it, and says exactly what does not fit.
	u.json = append([]byte(nil), js...)
}

// itemKind is the kind of a typed List's items, as the API server leaves
// them out: PersistentVolumeClaimList holds PersistentVolumeClaims.
func itemKind(listKind string) string { return strings.TrimSuffix(listKind, "List") }
