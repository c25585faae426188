package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	eventsv1 "k8s.io/api/events/v1"
)

// heldSink counts the writes in flight and holds each until release is
// closed.
type heldSink struct {
	now, most atomic.Int32
	release   chan struct{}
}

func (s *heldSink) write() (*eventsv1.Event, error) {
	n := s.now.Add(1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	<-s.release
	s.now.Add(-1)
	return &eventsv1.Event{}, nil
}

func (s *heldSink) Create(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write()
}

func (s *heldSink) Update(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write()
}

func (s *heldSink) Patch(context.Context, *eventsv1.Event, []byte) (*eventsv1.Event, error) {
	return s.write()
}

// The sink lets eventWriters writes run at once, whatever their kind, and
// no more; as many as that run at once without waiting.
func TestBoundedSink(t *testing.T) {
	for name, tc := range map[string]struct{ writes, most int }{
		"AtTheBound":   {eventWriters, eventWriters},
		"OverTheBound": {3 * eventWriters, eventWriters},
	} {
		t.Run(name, func(t *testing.T) {
			held := &heldSink{release: make(chan struct{})}
			s := boundedSink{sink: held, slots: make(chan struct{}, eventWriters)}
			var wg sync.WaitGroup
			for i := range tc.writes {
				wg.Go(func() {
					switch i % 3 {
					case 0:
						_, _ = s.Create(context.Background(), &eventsv1.Event{})
					case 1:
						_, _ = s.Update(context.Background(), &eventsv1.Event{})
					default:
						_, _ = s.Patch(context.Background(), &eventsv1.Event{}, nil)
					}
				})
			}
			assert.Eventually(t, func() bool { return held.now.Load() == int32(tc.most) }, 10*time.Second, time.Millisecond,
				"%d writes in flight of %d", tc.most, tc.writes)
			time.Sleep(50 * time.Millisecond)
			assert.Equal(t, int32(tc.most), held.most.Load(), "never more than the bound in flight")
			close(held.release)
			wg.Wait()
		})
	}
}

// A shared value is read once per epoch, again when the epoch moves (even
// during the read), and again once sharedFor has passed.
func TestShared(t *testing.T) {
	now := time.Unix(0, 0)
	e := &epoch{now: func() time.Time { return now }}
	var s shared[int]
	reads := 0
	read := func() (int, error) { reads++; return reads, nil }
	get := func() int {
		v, err := s.get(e, read)
		assert.NoError(t, err)
		return v
	}
	assert.Equal(t, 1, get(), "the first read")
	assert.Equal(t, 1, get(), "no change: the same value")
	now = now.Add(sharedFor - time.Nanosecond)
	assert.Equal(t, 1, get(), "just within sharedFor: the same value")
	e.changed()
	assert.Equal(t, 2, get(), "a change seen: read again")
	now = now.Add(sharedFor)
	assert.Equal(t, 3, get(), "sharedFor passed: read again")
	e.changed()
	v, _ := s.get(e, func() (int, error) { e.changed(); return read() })
	assert.Equal(t, 4, v)
	assert.Equal(t, 5, get(), "a change seen during the read: read again")
	e.changed()
	_, err := s.get(e, func() (int, error) { return 0, assert.AnError })
	assert.ErrorIs(t, err, assert.AnError, "a failed read is the read's error")
	assert.Equal(t, 6, get(), "and keeps nothing")
}
