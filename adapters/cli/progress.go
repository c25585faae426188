package cli

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Progress on standard error (issue 17): for an input over progressBytes
// or a fleet over progressPools, a line every progressEvery, and one when
// done; only on a terminal, unless --progress asks for it anywhere.
const (
	progressBytes = 50 << 20
	progressPools = 1000
	progressEvery = time.Second
)

// progress reports one long step.
type progress struct {
	a     *app
	start time.Time
	stop  chan struct{}
	done  sync.WaitGroup
	line  func(elapsed time.Duration) string
}

// progressOn reports whether progress lines are printed at all.
func (a *app) progressOn() bool { return a.showProgress || isTerminal(a.stderr) }

// startProgress prints line every progressEvery until finish.
func (a *app) startProgress(line func(elapsed time.Duration) string) *progress {
	p := &progress{a: a, start: time.Now(), stop: make(chan struct{}), line: line}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				printf(a.stderr, "%s\n", p.line(time.Since(p.start)))
			}
		}
	}()
	return p
}

// finish stops the ticks and prints the last line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.done.Wait()
	printf(p.a.stderr, "%s\n", p.line(time.Since(p.start)))
}

// countingReader counts what a decoder has consumed of data.
type countingReader struct {
	r    *bytes.Reader
	data []byte
	n    atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// readProgress wraps data for a decoder and, when it is over
// progressBytes and progress is on, reports the objects read (the
// documents and List items begun so far) and the rate.
func (a *app) readProgress(name string, data []byte) (io.Reader, *progress) {
	cr := &countingReader{r: bytes.NewReader(data), data: data}
	if len(data) <= progressBytes || !a.progressOn() {
		return cr, nil
	}
	var (
		scanned int
		objects int
	)
	total := float64(len(data)) / (1 << 20)
	p := a.startProgress(func(elapsed time.Duration) string {
		n := int(cr.n.Load())
		objects += countObjects(data[scanned:n])
		scanned = n
		mb := float64(n) / (1 << 20)
		return sprintf("reading %s: %d objects, %.1f of %.1f MB (%.1f MB/s)", name, objects, mb, total, mb/max(elapsed.Seconds(), 0.001))
	})
	return cr, p
}

// countObjects counts the objects begun in a stretch of YAML: a "kind:"
// key at a document's top level or at a List item's.
func countObjects(b []byte) int {
	n := 0
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if bytes.HasPrefix(line, []byte("kind: ")) || bytes.HasPrefix(line, []byte("  kind: ")) || bytes.HasPrefix(line, []byte("- kind: ")) {
			n++
		}
	}
	return n
}

// planProgress reports planning a fleet over progressPools.
func (a *app) planProgress(done *atomic.Int64, total int) *progress {
	if total <= progressPools || !a.progressOn() {
		return nil
	}
	return a.startProgress(func(elapsed time.Duration) string {
		n := done.Load()
		return sprintf("planned %d of %d pools (%.0f pools/s)", n, total, float64(n)/max(elapsed.Seconds(), 0.001))
	})
}
