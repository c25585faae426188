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

// stepSink tells each write's arrival and holds it until told to proceed.
type stepSink struct{ arrived, proceed chan struct{} }

func (s stepSink) write() (*eventsv1.Event, error) {
	s.arrived <- struct{}{}
	<-s.proceed
	return &eventsv1.Event{}, nil
}

func (s stepSink) Create(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write()
}

func (s stepSink) Update(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write()
}

func (s stepSink) Patch(context.Context, *eventsv1.Event, []byte) (*eventsv1.Event, error) {
	return s.write()
}

// arrives reports whether a write reaches the sink within d.
func (s stepSink) arrives(d time.Duration) bool {
	select {
	case <-s.arrived:
		return true
	case <-time.After(d):
		return false
	}
}

// A write waits while a change waits to be planned again, including one
// that was waiting for its slot when the change was seen, and goes on once
// none does; with no change waiting it is not held at all.
func TestHoldWhileChangesWait(t *testing.T) {
	h := newHold(time.Hour)
	s := stepSink{arrived: make(chan struct{}), proceed: make(chan struct{})}
	b := boundedSink{sink: s, slots: make(chan struct{}, 1), hold: h}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _, _ = b.Create(context.Background(), &eventsv1.Event{}) })
	assert.True(t, s.arrives(10*time.Second), "no change waits: the write is not held")
	wg.Go(func() { _, _ = b.Update(context.Background(), &eventsv1.Event{}) })
	time.Sleep(50 * time.Millisecond) // the Update now waits for the slot
	h.set(true)
	s.proceed <- struct{}{}
	assert.False(t, s.arrives(100*time.Millisecond), "a change waits: the write that waited for its slot is held")
	h.set(false)
	assert.True(t, s.arrives(10*time.Second), "no change waits any longer: the write goes on")
	s.proceed <- struct{}{}
	h.set(true)
	h.set(false)
	wg.Go(func() { _, _ = b.Patch(context.Background(), &eventsv1.Event{}, nil) })
	assert.True(t, s.arrives(10*time.Second), "the changes planned: the next write is not held")
	s.proceed <- struct{}{}
}

// Changes that keep waiting hold the writes no longer than heldFor, nor
// past the end of the write's context.
func TestHoldAtMostHeldFor(t *testing.T) {
	s := stepSink{arrived: make(chan struct{}), proceed: make(chan struct{})}
	h := newHold(200 * time.Millisecond)
	h.set(true)
	b := boundedSink{sink: s, slots: make(chan struct{}, 1), hold: h}
	done := make(chan struct{})
	go func() { _, _ = b.Create(context.Background(), &eventsv1.Event{}); close(done) }()
	assert.True(t, s.arrives(10*time.Second), "held no longer than heldFor")
	s.proceed <- struct{}{}
	<-done
	go func() { _, _ = b.Create(context.Background(), &eventsv1.Event{}) }()
	assert.True(t, s.arrives(10*time.Second), "a spell longer than heldFor holds no later write")
	s.proceed <- struct{}{}

	long := boundedSink{sink: s, slots: make(chan struct{}, 1), hold: newHold(time.Hour)}
	long.hold.set(true)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = long.Create(ctx, &eventsv1.Event{}) }()
	assert.False(t, s.arrives(100*time.Millisecond), "held within heldFor")
	cancel()
	assert.True(t, s.arrives(10*time.Second), "not past the context's end")
	s.proceed <- struct{}{}
}

// The reconciler holds the Events from the first change stamped to the
// last one planned again, and a pool forgotten ends its change too.
func TestPendingHoldsEvents(t *testing.T) {
	r := &reconciler{pending: map[ref]pending{}, planned: map[ref]*entry{}, metrics: newMetrics(), hold: newHold(time.Hour)}
	waiting := func() bool { r.hold.mu.Lock(); defer r.hold.mu.Unlock(); return r.hold.waiting }
	a, b := ref{Kind: kubernetesNodes, Namespace: "t", Name: "a"}, ref{Kind: kubernetesNodes, Namespace: "t", Name: "b"}
	assert.False(t, waiting(), "no change seen")
	r.stamp(a, time.Now(), "StorageProfile")
	r.stamp(b, time.Now(), "StorageProfile")
	r.stamp(a, time.Now(), "StorageClass")
	assert.True(t, waiting(), "changes stamped")
	r.mu.Lock()
	r.observe(a)
	r.mu.Unlock()
	assert.True(t, waiting(), "one of two planned again")
	r.forget(b)
	assert.False(t, waiting(), "the other forgotten: none waits")
}
