package cli

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Progress on standard error: for an input over progressBytes
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

// countingReader is a decoder's input read at offsets where it lies (a
// regular file, or bytes in memory), so that the decoder need not copy
// it, counting what the decoder has read of it in order and the objects
// begun in that: a line "kind: …" at a document's top level or at a List
// item's ("  kind: ", "- kind: "). A stretch read again (to say what is
// wrong with a document) counts once.
type countingReader struct {
	ra   io.ReaderAt
	size int64
	off  int64 // where Read and Seek stand

	// next is the end of what has been read in order; head the start of
	// the line it ends in (up to headLen bytes), and decided whether that
	// line is already counted or known not to begin an object. Only the
	// decoder's goroutine touches them.
	next    int64
	head    []byte
	decided bool

	// counting is whether a progress line reads n and objects: without
	// one, the decoder's reads are not scanned.
	counting   bool
	n, objects atomic.Int64
}

// newCountingReader reads size bytes of ra, counting them and their
// objects when counting.
func newCountingReader(ra io.ReaderAt, size int64, counting bool) *countingReader {
	return &countingReader{ra: ra, size: size, head: make([]byte, 0, headLen), counting: counting}
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ra.ReadAt(p, off)
	if c.counting && off == c.next && n > 0 {
		c.count(p[:n])
		c.next += int64(n)
		c.n.Store(c.next)
		if c.next >= c.size {
			c.endLine() // the last line, without its newline
		}
	}
	return n, err
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.off >= c.size {
		return 0, io.EOF
	}
	n, err := c.ReadAt(p[:min(int64(len(p)), c.size-c.off)], c.off)
	c.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (c *countingReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += c.off
	case io.SeekEnd:
		offset += c.size
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("seek before the start")
	}
	c.off = offset
	return offset, nil
}

func (c *countingReader) Size() int64 { return c.size }

// headLen is the longest start of a line that begins an object, "- kind: ".
const headLen = len("- kind: ")

// count counts the objects begun in b, the next stretch read in order.
func (c *countingReader) count(b []byte) {
	for len(b) > 0 {
		line, rest, ended := bytes.Cut(b, []byte("\n"))
		if !c.decided {
			c.head = append(c.head, line[:min(headLen-len(c.head), len(line))]...)
			if len(c.head) == headLen {
				c.endLine()
			}
		}
		if ended {
			c.endLine()
			c.head, c.decided = c.head[:0], false
		}
		b = rest
	}
}

// endLine decides, once, whether the line that head begins is an object's.
func (c *countingReader) endLine() {
	if c.decided {
		return
	}
	if bytes.HasPrefix(c.head, []byte("kind: ")) || bytes.HasPrefix(c.head, []byte("  kind: ")) || bytes.HasPrefix(c.head, []byte("- kind: ")) {
		c.objects.Add(1)
	}
	c.decided = true
}

// readProgress wraps a decoder's input, size bytes, and, when it is over
// progressBytes and progress is on, reports the objects read and the rate.
func (a *app) readProgress(name string, ra io.ReaderAt, size int64) (*countingReader, *progress) {
	if size <= progressBytes || !a.progressOn() {
		return newCountingReader(ra, size, false), nil
	}
	cr := newCountingReader(ra, size, true)
	total := float64(size) / (1 << 20)
	p := a.startProgress(func(elapsed time.Duration) string {
		mb := float64(cr.n.Load()) / (1 << 20)
		return sprintf("reading %s: %d objects, %.1f of %.1f MB (%.1f MB/s)", name, cr.objects.Load(), mb, total, mb/max(elapsed.Seconds(), 0.001))
	})
	return cr, p
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
