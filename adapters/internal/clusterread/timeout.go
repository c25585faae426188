package clusterread

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// BoundWatchesBySilence is cfg with its Timeout moved from the HTTP client
// into its transport: a request that is not a watch is bounded by it as
// before, headers and body; a watch (a streaming list is one) only while
// the server is silent, from the request until its headers and between
// two reads of its body that bring bytes. A streaming list of 100,000
// disks on a loaded server takes longer than any timeout meant for one
// request, and cut, it is read again page by page. A cfg with no Timeout
// is returned as it is; cfg is not changed.
func BoundWatchesBySilence(cfg *rest.Config) *rest.Config {
	if cfg.Timeout <= 0 {
		return cfg
	}
	d := cfg.Timeout
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 0
	wrap := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if wrap != nil {
			rt = wrap(rt)
		}
		return bounded{rt, d}
	}
	return cfg
}

// bounded bounds each request as BoundWatchesBySilence says.
type bounded struct {
	http.RoundTripper
	d time.Duration
}

// WrappedRoundTripper is the transport under it (net.RoundTripperWrapper).
func (b bounded) WrappedRoundTripper() http.RoundTripper { return b.RoundTripper }

func (b bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	watch := req.URL.Query().Get("watch") == "true"
	// Any other request has one bound for the whole of it, its body read
	// included, as the HTTP client's Timeout had.
	t := &silence{d: b.d, cancel: cancel, whole: !watch}
	t.timer = time.AfterFunc(b.d, t.expire)
	resp, err := b.RoundTripper.RoundTrip(req.WithContext(ctx))
	if err != nil {
		t.stop()
		if t.expired.Load() {
			return nil, t.err()
		}
		return nil, err
	}
	if resp.Body == nil {
		t.stop()
		return resp, nil
	}
	if watch {
		t.timer.Reset(b.d)
	}
	resp.Body = &silentBody{body: resp.Body, t: t}
	return resp, nil
}

// silence is one request's bound: the request's context is cancelled when
// its timer fires.
type silence struct {
	d       time.Duration
	cancel  context.CancelFunc
	timer   *time.Timer
	whole   bool
	expired atomic.Bool
	once    sync.Once
}

func (s *silence) expire() {
	s.expired.Store(true)
	s.cancel()
}

func (s *silence) stop() {
	s.once.Do(func() {
		s.timer.Stop()
		s.cancel()
	})
}

// err is what a request that ran out of its bound returns: a timeout, as
// the HTTP client's own (errors.Is finds os.ErrDeadlineExceeded).
func (s *silence) err() error {
	if s.whole {
		return &timeoutError{fmt.Sprintf("no answer within %v (the request timeout)", s.d)}
	}
	return &timeoutError{fmt.Sprintf("the watch was silent for %v (the request timeout)", s.d)}
}

// timeoutError is a net.Error that timed out.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string   { return e.msg }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
func (e *timeoutError) Unwrap() error   { return os.ErrDeadlineExceeded }

// silentBody is a body whose reads that bring bytes push its watch's
// bound back.
type silentBody struct {
	body io.ReadCloser
	t    *silence
}

func (b *silentBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if b.t.expired.Load() {
		return n, b.t.err()
	}
	if n > 0 && !b.t.whole {
		b.t.timer.Reset(b.t.d)
	}
	return n, err
}

func (b *silentBody) Close() error {
	err := b.body.Close()
	b.t.stop()
	return err
}
