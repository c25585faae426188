package manifests

import (
	"runtime"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
)

// pool decodes batches on every core while the splitter reads on.
type pool struct {
	work chan *batch
	wg   sync.WaitGroup
}

func newPool() *pool {
	n := runtime.GOMAXPROCS(0)
	p := &pool{work: make(chan *batch, 2*n)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w := newWorker()
			for b := range p.work {
				w.batch(b)
			}
		}()
	}
	return p
}

func (p *pool) send(b *batch) { p.work <- b }

// wait returns once every batch sent is decoded.
func (p *pool) wait() {
	close(p.work)
	p.wg.Wait()
}

// batch decodes every unit of b, and lets go of b's bytes.
func (w *worker) batch(b *batch) {
	for i := range b.units {
		w.unit(b.data, &b.units[i])
	}
	b.data = nil
}

func (w *worker) unit(data []byte, u *unit) {
	src := data[u.start:u.end]
	var js []byte
	switch u.kind {
	case entryUnit:
		js, u.id, u.ok = transcodeEntry(w.json[:0], src)
		w.json = js
	case yamlDocUnit:
		js, u.id, u.ok = transcodeDocument(w.json[:0], src)
		w.json = js
	case jsonItemUnit:
		u.id, u.ok = scanJSONItem(src)
		js = src
	case jsonDocUnit:
		var s *jsonScanner
		s, u.ok = scanJSONDocument(src, 0, u.line)
		u.id, u.items, js = s.id, len(s.items), src
	}
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
			u.obj = obj
			return
		}
	}
	// The general path converts it, and says exactly what does not fit.
	u.json = append([]byte(nil), js...)
}

// itemKind is the kind of a typed List's items, as the API server leaves
// them out: PersistentVolumeClaimList holds PersistentVolumeClaims.
func itemKind(listKind string) string { return strings.TrimSuffix(listKind, "List") }
