package controller

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// heldSink counts the writes in flight, holds each until release is
// closed, and records the names of the Events written, in order.
type heldSink struct {
	now, most atomic.Int32
	release   chan struct{}

	mu      sync.Mutex
	written []string
}

func (s *heldSink) write(e *eventsv1.Event) (*eventsv1.Event, error) {
	n := s.now.Add(1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	<-s.release
	s.mu.Lock()
	s.written = append(s.written, e.Name)
	s.mu.Unlock()
	s.now.Add(-1)
	return e, nil
}

func (s *heldSink) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.written)
}

func (s *heldSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(e)
}

func (s *heldSink) Update(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(e)
}

func (s *heldSink) Patch(_ context.Context, e *eventsv1.Event, _ []byte) (*eventsv1.Event, error) {
	return s.write(e)
}

// testSink is a queuedSink of sink with writers and bound, retrying at
// once, whose writers run until the test ends.
func testSink(t *testing.T, sink events.EventSink, h *hold, writers, bound int) *queuedSink {
	s := newQueuedSink(sink, h, newMetrics().eventsDropped, logr.Discard())
	s.writers, s.bound, s.retryAfter = writers, bound, time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

func dropped(s *queuedSink, cause string) int {
	return int(testutil.ToFloat64(s.dropped.WithLabelValues(cause)))
}

func named(name string) *eventsv1.Event {
	return &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: name}}
}

// The sink writes eventWriters Events at once, whatever the kind of write,
// and no more; the others wait in the queue.
func TestQueuedSinkWriters(t *testing.T) {
	for name, tc := range map[string]struct{ writes, most int }{
		"AtTheBound":   {eventWriters, eventWriters},
		"OverTheBound": {3 * eventWriters, eventWriters},
	} {
		t.Run(name, func(t *testing.T) {
			held := &heldSink{release: make(chan struct{})}
			s := testSink(t, held, nil, eventWriters, eventsQueued)
			for i := range tc.writes {
				e := named(fmt.Sprint(i))
				switch i % 3 {
				case 0:
					_, _ = s.Create(context.Background(), e)
				case 1:
					_, _ = s.Update(context.Background(), e)
				default:
					_, _ = s.Patch(context.Background(), e, nil)
				}
			}
			assert.Eventually(t, func() bool { return held.now.Load() == int32(tc.most) }, 10*time.Second, time.Millisecond,
				"%d writes in flight of %d", tc.most, tc.writes)
			time.Sleep(50 * time.Millisecond)
			assert.Equal(t, int32(tc.most), held.most.Load(), "never more than the bound in flight")
			assert.Equal(t, tc.writes-tc.most, s.queued(), "the others queued")
			close(held.release)
			assert.Eventually(t, func() bool { return len(held.names()) == tc.writes }, 10*time.Second, time.Millisecond, "every write made")
			assert.Zero(t, dropped(s, droppedQueueFull))
		})
	}
}

// A series is patched with the Event the broadcaster's cache holds, which
// it goes on counting into under its lock once the call has returned: the
// write made later is of the Event as it was given, and reads nothing the
// broadcaster writes (run with -race). An Update likewise.
func TestQueuedSinkWritesACopy(t *testing.T) {
	counts := make(chan int32, 2)
	sink := &recordingSink{got: func(e *eventsv1.Event) { counts <- e.Series.Count }}
	s := testSink(t, sink, newHold(time.Hour), 1, eventsQueued)
	s.hold.set(true) // the writer waits until the given Events have changed
	cached := named("series")
	cached.Series = &eventsv1.EventSeries{Count: 2}
	_, _ = s.Patch(context.Background(), cached, []byte("{}"))
	_, _ = s.Update(context.Background(), cached)
	cached.Series.Count = 3 // the broadcaster counts the next occurrence
	s.hold.set(false)
	for range 2 {
		select {
		case n := <-counts:
			assert.EqualValues(t, 2, n, "the Event as it was given")
		case <-time.After(10 * time.Second):
			t.Fatal("no write made")
		}
	}
}

// recordingSink hands each Event written to got.
type recordingSink struct{ got func(*eventsv1.Event) }

func (s *recordingSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.got(e)
	return e, nil
}

func (s *recordingSink) Update(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.got(e)
	return e, nil
}

func (s *recordingSink) Patch(_ context.Context, e *eventsv1.Event, _ []byte) (*eventsv1.Event, error) {
	s.got(e)
	return e, nil
}

// Past its bound the queue drops its oldest writes, and counts them; the
// writes are made in the order they were queued. Filled to its bound
// exactly, it drops none.
func TestQueuedSinkBound(t *testing.T) {
	const bound = 5
	for name, tc := range map[string]struct {
		writes  int
		dropped int
	}{
		"PastTheBound": {20, 20 - 1 - bound},
		"AtTheBound":   {1 + bound, 0},
	} {
		t.Run(name, func(t *testing.T) {
			held := &heldSink{release: make(chan struct{})}
			s := testSink(t, held, nil, 1, bound)
			_, _ = s.Create(context.Background(), named("0"))
			require.Eventually(t, func() bool { return held.now.Load() == 1 }, 10*time.Second, time.Millisecond, "the first write in flight")
			for i := 1; i < tc.writes; i++ {
				_, _ = s.Create(context.Background(), named(fmt.Sprint(i)))
			}
			assert.Equal(t, tc.writes-1-tc.dropped, s.queued())
			assert.Equal(t, tc.dropped, dropped(s, droppedQueueFull))
			close(held.release)
			want := []string{"0"}
			for i := 1 + tc.dropped; i < tc.writes; i++ {
				want = append(want, fmt.Sprint(i))
			}
			assert.Eventually(t, func() bool { return len(held.names()) == len(want) }, 10*time.Second, time.Millisecond)
			assert.Equal(t, want, held.names(), "the first in flight, then the newest, in order")
		})
	}
}

// The broadcaster's goroutine for an Event ends once the Event is queued:
// a burst of Events written to an API server that does not answer costs
// the queue, bounded, and the writers, not a goroutine per Event.
func TestQueuedSinkBroadcaster(t *testing.T) {
	// Fewer than the broadcaster's watch queue holds, which would drop
	// Events of its own.
	const recorded, bound, writers = 900, 100, 4
	base := runtime.NumGoroutine()
	held := &heldSink{release: make(chan struct{})}
	s := testSink(t, held, nil, writers, bound)
	b := events.NewBroadcaster(s)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, b.StartRecordingToSinkWithContext(ctx))
	rec := b.NewRecorder(clientgoscheme.Scheme, Name)
	for i := range recorded {
		rec.Eventf(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: fmt.Sprint(i)}}, nil,
			corev1.EventTypeNormal, "Planned", "Plan", "planned")
	}
	require.Eventually(t, func() bool { return dropped(s, droppedQueueFull) == recorded-bound-writers }, 30*time.Second, 10*time.Millisecond,
		"every Event queued or dropped")
	assert.Equal(t, bound, s.queued())
	assert.Eventually(t, func() bool { return runtime.NumGoroutine()-base <= writers+10 }, 10*time.Second, 10*time.Millisecond,
		"goroutines: %d over the test's own (writers %d)", runtime.NumGoroutine()-base, writers)
	close(held.release)
	assert.Eventually(t, func() bool { return len(held.names()) == bound+writers }, 10*time.Second, time.Millisecond)
	cancel()
	b.Shutdown()
}

// scriptSink fails its writes with errs, in turn (nil: written), and
// records the kind of each.
type scriptSink struct {
	errs  []error
	calls []string
}

func (s *scriptSink) call(verb string) (*eventsv1.Event, error) {
	s.calls = append(s.calls, verb)
	if len(s.errs) == 0 {
		return &eventsv1.Event{}, nil
	}
	err := s.errs[0]
	s.errs = s.errs[1:]
	return nil, err
}

func (s *scriptSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	if e.ResourceVersion != "" {
		return nil, errors.New("created with a resourceVersion")
	}
	return s.call("create")
}

func (s *scriptSink) Update(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.call("update")
}

func (s *scriptSink) Patch(context.Context, *eventsv1.Event, []byte) (*eventsv1.Event, error) {
	return s.call("patch")
}

// A write is tried again while it fails transiently, at most eventTries
// times; a series' Patch that finds no Event creates it; what the API
// server refuses, or what never succeeds, is dropped and counted.
func TestQueuedSinkWrite(t *testing.T) {
	gr := schema.GroupResource{Group: "events.k8s.io", Resource: "events"}
	notFound, exists := apierrors.NewNotFound(gr, "e"), apierrors.NewAlreadyExists(gr, "e")
	transport := errors.New("connection refused")
	transients := func(n int) []error {
		errs := make([]error, n)
		for i := range errs {
			errs[i] = transport
		}
		return errs
	}
	for name, tc := range map[string]struct {
		verb    eventVerb
		errs    []error
		calls   []string
		dropped string
	}{
		"Created":                {verb: createEvent, calls: []string{"create"}},
		"Patched":                {verb: patchEvent, calls: []string{"patch"}},
		"Updated":                {verb: updateEvent, calls: []string{"update"}},
		"PatchFindsNone":         {verb: patchEvent, errs: []error{notFound}, calls: []string{"patch", "create"}},
		"SeriesCreatedMeanwhile": {verb: patchEvent, errs: []error{notFound, exists}, calls: []string{"patch", "create", "patch"}},
		"CreatedAlready":         {verb: createEvent, errs: []error{exists}, calls: []string{"create"}},
		"Overloaded":             {verb: createEvent, errs: []error{apierrors.NewTooManyRequests("busy", 1)}, calls: []string{"create", "create"}},
		"JustWithinTries":        {verb: createEvent, errs: transients(eventTries - 1), calls: slices.Repeat([]string{"create"}, eventTries)},
		"Unreachable":            {verb: createEvent, errs: transients(eventTries), calls: slices.Repeat([]string{"create"}, eventTries), dropped: droppedUnreachable},
		"Rejected":               {verb: createEvent, errs: []error{apierrors.NewBadRequest("bad")}, calls: []string{"create"}, dropped: droppedRejected},
		"Malformed":              {verb: createEvent, errs: []error{&rest.RequestConstructionError{Err: transport}}, calls: []string{"create"}, dropped: droppedRejected},
	} {
		t.Run(name, func(t *testing.T) {
			sink := &scriptSink{errs: tc.errs}
			s := newQueuedSink(sink, nil, newMetrics().eventsDropped, logr.Discard())
			s.retryAfter = time.Millisecond
			e := named("e")
			e.ResourceVersion = "7"
			s.write(context.Background(), eventWrite{verb: tc.verb, event: e})
			assert.Equal(t, tc.calls, sink.calls)
			for _, cause := range []string{droppedQueueFull, droppedRejected, droppedUnreachable} {
				want := 0
				if cause == tc.dropped {
					want = 1
				}
				assert.Equal(t, want, dropped(s, cause), cause)
			}
			assert.Equal(t, "7", e.ResourceVersion, "the Event queued is not changed")
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
// that was queued when the change was seen, and goes on once none does;
// with no change waiting it is not held at all.
func TestHoldWhileChangesWait(t *testing.T) {
	h := newHold(time.Hour)
	s := stepSink{arrived: make(chan struct{}), proceed: make(chan struct{})}
	b := testSink(t, s, h, 1, eventsQueued)
	_, _ = b.Create(context.Background(), &eventsv1.Event{})
	assert.True(t, s.arrives(10*time.Second), "no change waits: the write is not held")
	_, _ = b.Update(context.Background(), &eventsv1.Event{})
	assert.Equal(t, 1, b.queued(), "the Update waits for the writer")
	h.set(true)
	s.proceed <- struct{}{}
	assert.False(t, s.arrives(100*time.Millisecond), "a change waits: the write that waited for its slot is held")
	h.set(false)
	assert.True(t, s.arrives(10*time.Second), "no change waits any longer: the write goes on")
	s.proceed <- struct{}{}
	h.set(true)
	h.set(false)
	_, _ = b.Patch(context.Background(), &eventsv1.Event{}, nil)
	assert.True(t, s.arrives(10*time.Second), "the changes planned: the next write is not held")
	s.proceed <- struct{}{}
}

// Changes that keep waiting hold the writes no longer than heldFor; at
// the end of the writers' context a write held is not made.
func TestHoldAtMostHeldFor(t *testing.T) {
	s := stepSink{arrived: make(chan struct{}), proceed: make(chan struct{})}
	h := newHold(200 * time.Millisecond)
	h.set(true)
	b := testSink(t, s, h, 1, eventsQueued)
	_, _ = b.Create(context.Background(), &eventsv1.Event{})
	assert.True(t, s.arrives(10*time.Second), "held no longer than heldFor")
	s.proceed <- struct{}{}
	_, _ = b.Create(context.Background(), &eventsv1.Event{})
	assert.True(t, s.arrives(10*time.Second), "a spell longer than heldFor holds no later write")
	s.proceed <- struct{}{}

	long := newQueuedSink(s, newHold(time.Hour), newMetrics().eventsDropped, logr.Discard())
	long.writers = 1
	long.hold.set(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); long.run(ctx) }()
	_, _ = long.Create(context.Background(), &eventsv1.Event{})
	assert.False(t, s.arrives(100*time.Millisecond), "held within heldFor")
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the writers did not stop at the end of their context")
	}
	assert.False(t, s.arrives(100*time.Millisecond), "the write held is not made once the writers stop")
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
