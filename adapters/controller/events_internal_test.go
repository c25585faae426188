package controller

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
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
)

// heldSink counts the writes in flight, holds each until release is
// closed, and records the names of the Events written, in order.
type heldSink struct {
	now, most atomic.Int32
	release   chan struct{}

	mu      sync.Mutex
	written []string
	last    *eventsv1.Event // the last Event in flight
}

func (s *heldSink) write(e *eventsv1.Event) (*eventsv1.Event, error) {
	s.mu.Lock()
	s.last = e
	s.mu.Unlock()
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

// testSink is a queuedSink of sink with writers and bound, retrying at
// once, whose writers run until the test ends.
func testSink(t *testing.T, sink eventCreator, h *hold, writers, bound int) *queuedSink {
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

// The sink writes eventWriters Events at once, and no more; the others
// wait in the queue.
func TestQueuedSinkWriters(t *testing.T) {
	for name, tc := range map[string]struct{ writes, most int }{
		"AtTheBound":   {eventWriters, eventWriters},
		"OverTheBound": {3 * eventWriters, eventWriters},
	} {
		t.Run(name, func(t *testing.T) {
			held := &heldSink{release: make(chan struct{})}
			s := testSink(t, held, nil, eventWriters, eventsQueued)
			for i := range tc.writes {
				s.enqueue(named(fmt.Sprint(i)))
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
			s.enqueue(named("0"))
			require.Eventually(t, func() bool { return held.now.Load() == 1 }, 10*time.Second, time.Millisecond, "the first write in flight")
			for i := 1; i < tc.writes; i++ {
				s.enqueue(named(fmt.Sprint(i)))
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

// The recorder makes an Event as client-go's does: named for its object
// and the time of recording, in its object's namespace, from this
// controller; it queues it and starts no goroutine. A burst of Events
// written to an API server that does not answer costs the queue, bounded,
// and the writers. An object the scheme does not know, or a type neither
// Normal nor Warning, records nothing.
func TestEventRecorder(t *testing.T) {
	const recorded, bound, writers = 900, 100, 4
	base := runtime.NumGoroutine()
	held := &heldSink{release: make(chan struct{})}
	s := testSink(t, held, nil, writers, bound)
	rec := newEventRecorder(clientgoscheme.Scheme, s, logr.Discard())
	at := time.Unix(1700000000, 5)
	rec.now = func() time.Time { return at }
	pool := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "p", UID: "u"}}
	rec.Eventf(pool, nil, corev1.EventTypeWarning, "GoldenMissing", "Plan", "refused: %s", "no golden")
	require.Eventually(t, func() bool { return held.now.Load() == 1 }, 10*time.Second, time.Millisecond, "the Event written")
	held.mu.Lock()
	e := held.last
	held.mu.Unlock()
	require.NotNil(t, e)
	assert.Equal(t, fmt.Sprintf("p.%x", at.UnixNano()), e.Name)
	assert.Equal(t, "t", e.Namespace)
	assert.Equal(t, corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: "t", Name: "p", UID: "u"}, e.Regarding)
	assert.Equal(t, []string{"Warning", "GoldenMissing", "Plan", "refused: no golden", Name}, []string{e.Type, e.Reason, e.Action, e.Note, e.ReportingController})
	assert.True(t, strings.HasPrefix(e.ReportingInstance, Name+"-"), e.ReportingInstance)
	assert.Equal(t, at.UnixNano(), e.EventTime.UnixNano())
	assert.Nil(t, e.Related)

	rec.Eventf(&unknownKind{}, nil, corev1.EventTypeNormal, "Planned", "Plan", "planned")
	rec.Eventf(pool, nil, "Error", "Planned", "Plan", "planned")
	assert.Zero(t, s.queued(), "nothing recorded of an unknown object or type")

	for i := range recorded - 1 {
		rec.Eventf(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: fmt.Sprint(i)}}, nil,
			corev1.EventTypeNormal, "Planned", "Plan", "planned")
	}
	require.Eventually(t, func() bool { return dropped(s, droppedQueueFull) == recorded-bound-writers }, 30*time.Second, 10*time.Millisecond,
		"every Event queued or dropped")
	assert.Equal(t, bound, s.queued())
	assert.LessOrEqual(t, runtime.NumGoroutine()-base, writers+10, "goroutines over the test's own (writers %d)", writers)
	close(held.release)
	assert.Eventually(t, func() bool { return len(held.names()) == bound+writers }, 10*time.Second, time.Millisecond)
}

// unknownKind is an object no scheme knows.
type unknownKind struct{ corev1.ConfigMap }

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

func (s *scriptSink) Create(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.call("create")
}

// A write is tried again while it fails transiently, at most eventTries
// times; an Event found created already is written; what the API
// server refuses, or what never succeeds, is dropped and counted.
func TestQueuedSinkWrite(t *testing.T) {
	gr := schema.GroupResource{Group: "events.k8s.io", Resource: "events"}
	exists := apierrors.NewAlreadyExists(gr, "e")
	transport := errors.New("connection refused")
	transients := func(n int) []error {
		errs := make([]error, n)
		for i := range errs {
			errs[i] = transport
		}
		return errs
	}
	for name, tc := range map[string]struct {
		errs    []error
		calls   []string
		dropped string
	}{
		"Created":         {calls: []string{"create"}},
		"CreatedAlready":  {errs: []error{exists}, calls: []string{"create"}},
		"Overloaded":      {errs: []error{apierrors.NewTooManyRequests("busy", 1)}, calls: []string{"create", "create"}},
		"JustWithinTries": {errs: transients(eventTries - 1), calls: slices.Repeat([]string{"create"}, eventTries)},
		"Unreachable":     {errs: transients(eventTries), calls: slices.Repeat([]string{"create"}, eventTries), dropped: droppedUnreachable},
		"Rejected":        {errs: []error{apierrors.NewBadRequest("bad")}, calls: []string{"create"}, dropped: droppedRejected},
		"Malformed":       {errs: []error{&rest.RequestConstructionError{Err: transport}}, calls: []string{"create"}, dropped: droppedRejected},
	} {
		t.Run(name, func(t *testing.T) {
			sink := &scriptSink{errs: tc.errs}
			s := newQueuedSink(sink, nil, newMetrics().eventsDropped, logr.Discard())
			s.retryAfter = time.Millisecond
			s.write(context.Background(), named("e"))
			assert.Equal(t, tc.calls, sink.calls)
			for _, cause := range []string{droppedQueueFull, droppedRejected, droppedUnreachable} {
				want := 0
				if cause == tc.dropped {
					want = 1
				}
				assert.Equal(t, want, dropped(s, cause), cause)
			}
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
	b.enqueue(&eventsv1.Event{})
	assert.True(t, s.arrives(10*time.Second), "no change waits: the write is not held")
	b.enqueue(&eventsv1.Event{})
	assert.Equal(t, 1, b.queued(), "the next waits for the writer")
	h.set(true)
	s.proceed <- struct{}{}
	assert.False(t, s.arrives(100*time.Millisecond), "a change waits: the write that waited for its slot is held")
	h.set(false)
	assert.True(t, s.arrives(10*time.Second), "no change waits any longer: the write goes on")
	s.proceed <- struct{}{}
	h.set(true)
	h.set(false)
	b.enqueue(&eventsv1.Event{})
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
	b.enqueue(&eventsv1.Event{})
	assert.True(t, s.arrives(10*time.Second), "held no longer than heldFor")
	s.proceed <- struct{}{}
	b.enqueue(&eventsv1.Event{})
	assert.True(t, s.arrives(10*time.Second), "a spell longer than heldFor holds no later write")
	s.proceed <- struct{}{}

	long := newQueuedSink(s, newHold(time.Hour), newMetrics().eventsDropped, logr.Discard())
	long.writers = 1
	long.hold.set(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); long.run(ctx) }()
	long.enqueue(&eventsv1.Event{})
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
