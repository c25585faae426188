package controller

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/apiclient"
)

// eventWriters is the most Events the controller writes to the API server
// at once. When one change moves the verdict of thousands of pools, each
// records an Event: written all at once, that is thousands of requests,
// more than an HTTP/2 connection's streams, so the client dials (and
// handshakes) connection after connection, holds every request in memory
// and takes the CPU the re-plans need. Bounded, the Events queue and
// follow the re-plans in the order they were recorded, over the manager's
// one connection.
const eventWriters = 4

// eventsQueued is the most Event writes waiting for a writer; past it the
// oldest is dropped, and counted. Each holds one Event (a note of at most
// noteLimit bytes): about 2 KiB, so at most some 20 MiB in all.
const eventsQueued = 10000

// eventTries is the most times a write that fails transiently (the API
// server unreachable, overloaded or timing out) is tried, eventRetryAfter
// (jittered) apart, before it is dropped and counted, as client-go's own
// broadcaster does for its writes.
const (
	eventTries      = 12
	eventRetryAfter = 10 * time.Second
	eventTimeout    = 30 * time.Second
)

// The causes of an Event dropped, the values of the events dropped
// metric's cause label.
const (
	droppedQueueFull   = "QueueFull"   // the queue held eventsQueued writes
	droppedRejected    = "Rejected"    // the API server refused it
	droppedUnreachable = "Unreachable" // eventTries transient failures
)

// queuedSink is an EventSink whose writes return at once: each is queued,
// and a few writers (run) write them in the order they were recorded,
// each once no change waits to be planned again (hold). client-go's
// broadcaster calls the sink from a goroutine per Event, which holds a
// copy of the Event for as long as the call lasts: a sink that waited for
// the API server would park one for every Event of a mass change. Queued,
// the Events cost their queue, which is bounded.
//
// A series Patch that finds no Event (the Event expired or was deleted)
// creates it instead, and a Create of a series that finds its Event
// created meanwhile patches it again, as client-go's own broadcaster does.
type queuedSink struct {
	sink       events.EventSink
	hold       *hold
	writers    int
	bound      int
	tries      int
	retryAfter time.Duration
	dropped    *prometheus.CounterVec
	log        logr.Logger

	mu    sync.Mutex
	queue []eventWrite
	more  chan struct{} // has a token when a write may be queued
	full  int           // writes dropped since the queue was last not full
}

// eventWrite is a write to make: a Create, an Update, or a Patch with
// patch.
type eventWrite struct {
	verb  eventVerb
	event *eventsv1.Event
	patch []byte
}

type eventVerb int

const (
	createEvent eventVerb = iota
	updateEvent
	patchEvent
)

func newQueuedSink(sink events.EventSink, h *hold, dropped *prometheus.CounterVec, log logr.Logger) *queuedSink {
	return &queuedSink{
		sink: sink, hold: h, writers: eventWriters, bound: eventsQueued,
		tries: eventTries, retryAfter: eventRetryAfter, dropped: dropped, log: log,
		more: make(chan struct{}, 1),
	}
}

var _ events.EventSink = (*queuedSink)(nil)

// Create queues e's creation and returns at once, with no Event: the
// broadcaster keeps none it is given back.
func (s *queuedSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.enqueue(eventWrite{verb: createEvent, event: e})
	return nil, nil
}

// Update queues a copy of e's update and returns at once.
func (s *queuedSink) Update(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.enqueue(eventWrite{verb: updateEvent, event: e.DeepCopy()})
	return nil, nil
}

// Patch queues the patch of a copy of e and returns at once. The
// broadcaster patches a series with the Event its cache holds, under its
// lock, and counts the series' next occurrences into that same Event
// later: the write, made after the call returns, must not read it.
func (s *queuedSink) Patch(_ context.Context, e *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	s.enqueue(eventWrite{verb: patchEvent, event: e.DeepCopy(), patch: data})
	return nil, nil
}

func (s *queuedSink) enqueue(w eventWrite) {
	s.mu.Lock()
	if len(s.queue) >= s.bound {
		old := s.queue[0]
		s.queue[0] = eventWrite{}
		s.queue = s.queue[1:]
		s.full++
		if s.full == 1 || s.full%1000 == 0 {
			s.log.Info("Event queue full: dropping the oldest", "queued", s.bound, "dropped", s.full,
				"namespace", old.event.Regarding.Namespace, "name", old.event.Regarding.Name, "reason", old.event.Reason)
		}
		s.dropped.WithLabelValues(droppedQueueFull).Inc()
	} else {
		s.full = 0
	}
	s.queue = append(s.queue, w)
	s.mu.Unlock()
	s.signal()
}

// signal lets a writer know a write may be queued.
func (s *queuedSink) signal() {
	select {
	case s.more <- struct{}{}:
	default:
	}
}

// next takes the oldest write queued, waiting for one until ctx ends.
func (s *queuedSink) next(ctx context.Context) (eventWrite, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			w := s.queue[0]
			s.queue[0] = eventWrite{}
			s.queue = s.queue[1:]
			left := len(s.queue)
			s.mu.Unlock()
			if left > 0 {
				s.signal() // another writer may take the next
			}
			return w, true
		}
		s.mu.Unlock()
		select {
		case <-s.more:
		case <-ctx.Done():
			return eventWrite{}, false
		}
	}
}

// queued is the number of writes waiting for a writer.
func (s *queuedSink) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// run writes the writes queued, s.writers at once, until ctx ends; the
// writes still queued then are not written.
func (s *queuedSink) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range s.writers {
		wg.Go(func() {
			for {
				w, ok := s.next(ctx)
				if !ok {
					return
				}
				if s.hold != nil {
					s.hold.wait(ctx)
				}
				if ctx.Err() != nil {
					return
				}
				s.write(ctx, w)
			}
		})
	}
	wg.Wait()
}

// write makes w, trying again, s.retryAfter (jittered) apart, while it
// fails transiently, at most s.tries times; a write dropped is counted.
func (s *queuedSink) write(ctx context.Context, w eventWrite) {
	for try := 1; ; try++ {
		err := s.writeOnce(ctx, w)
		if err == nil || ctx.Err() != nil {
			return
		}
		ns, name := w.event.Regarding.Namespace, w.event.Regarding.Name
		if !transient(err, w) {
			s.log.Error(err, "Event rejected: dropped", "namespace", ns, "name", name, "reason", w.event.Reason)
			s.dropped.WithLabelValues(droppedRejected).Inc()
			return
		}
		if try >= s.tries {
			s.log.Error(err, "Event not written after retrying: dropped", "namespace", ns, "name", name, "reason", w.event.Reason, "tries", try)
			s.dropped.WithLabelValues(droppedUnreachable).Inc()
			return
		}
		t := time.NewTimer(wait.Jitter(s.retryAfter, 0.25))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// writeOnce makes w once: a Patch that finds no Event creates it.
func (s *queuedSink) writeOnce(ctx context.Context, w eventWrite) error {
	ctx, cancel := context.WithTimeout(ctx, eventTimeout)
	defer cancel()
	var err error
	switch w.verb {
	case updateEvent:
		_, err = s.sink.Update(ctx, w.event)
		return err
	case patchEvent:
		if _, err = s.sink.Patch(ctx, w.event, w.patch); !apierrors.IsNotFound(err) {
			return err
		}
	}
	e := w.event
	if e.ResourceVersion != "" {
		e = e.DeepCopy()
		e.ResourceVersion = ""
	}
	_, err = s.sink.Create(ctx, e)
	if apierrors.IsAlreadyExists(err) && w.verb == createEvent {
		return nil // written already: an Event's name is its time of recording
	}
	return err
}

// transient reports whether w, failed with err, may succeed if tried
// again: the API server unreachable, overloaded or timing out, or a
// series' Event created (by another writer) between its Patch and its
// Create.
func transient(err error, w eventWrite) bool {
	var construct *rest.RequestConstructionError
	var status apierrors.APIStatus
	switch {
	case errors.As(err, &construct):
		return false
	case apierrors.IsAlreadyExists(err):
		return w.verb == patchEvent
	case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsInternalError(err), apierrors.IsServiceUnavailable(err), apierrors.IsUnexpectedServerError(err):
		return true
	case errors.As(err, &status):
		return false
	}
	return true // a transport error
}

// eventsHeldFor is the longest the Events wait for the re-plans of a
// change (hold).
const eventsHeldFor = 10 * time.Second

// hold keeps the Events back while changes seen wait to be planned again:
// when one change re-plans thousands of pools, each whose verdict it moves
// records an Event, and the API server's writes of them would take the
// CPU the re-plans need (on a control plane of two cores, most of the
// time from the change to the last re-plan). The Events are written once
// no change waits, in the order they were recorded. A busy spell that
// lasts longer than heldFor (changes that keep coming, a plan that keeps
// failing) holds them no longer: they are then written as they come.
type hold struct {
	heldFor time.Duration

	mu      sync.Mutex
	waiting bool          // a change waits to be planned again
	since   time.Time     // when the changes began to wait
	idle    chan struct{} // closed when no change waits
}

func newHold(heldFor time.Duration) *hold {
	h := &hold{heldFor: heldFor, idle: make(chan struct{})}
	close(h.idle)
	return h
}

// set says whether a change waits to be planned again.
func (h *hold) set(waiting bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case waiting && !h.waiting:
		h.since, h.idle = time.Now(), make(chan struct{})
	case !waiting && h.waiting:
		close(h.idle)
	}
	h.waiting = waiting
}

// wait returns once no change waits to be planned again, heldFor after
// the changes began to wait, or when ctx ends, whichever is first.
func (h *hold) wait(ctx context.Context) {
	h.mu.Lock()
	waiting, idle, left := h.waiting, h.idle, time.Until(h.since.Add(h.heldFor))
	h.mu.Unlock()
	if !waiting || left <= 0 {
		return
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
}

// recorder is an events.k8s.io/v1 recorder for mgr, reporting as Name,
// whose writes are queued (queuedSink), wait for h and are counted in
// dropped when lost, and which records from now until mgr stops.
//
// The broadcaster keeps a copy of each Event it was given for six to
// twelve minutes, to count it in a series if it recurs: as many as there
// were verdicts changed in that time, bounded by the pools and the
// reasons they can take.
func recorder(mgr manager.Manager, h *hold, dropped *prometheus.CounterVec) (events.EventRecorder, error) {
	c, err := eventsv1client.NewForConfigAndClient(apiclient.Config(mgr.GetConfig()), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	s := newQueuedSink(&events.EventSinkImpl{Interface: c}, h, dropped, mgr.GetLogger().WithName(Name).WithName("events"))
	b := events.NewBroadcaster(s)
	ctx, cancel := context.WithCancel(context.Background())
	if err := b.StartRecordingToSinkWithContext(ctx); err != nil {
		cancel()
		return nil, err
	}
	done := make(chan struct{})
	go func() { defer close(done); s.run(ctx) }()
	if err := mgr.Add(stopper(func() { cancel(); b.Shutdown(); <-done })); err != nil {
		cancel()
		b.Shutdown()
		return nil, err
	}
	return b.NewRecorder(mgr.GetScheme(), Name), nil
}

// stopper is a runnable that calls stop when the manager stops, leader or
// not.
type stopper func()

func (s stopper) Start(ctx context.Context) error {
	<-ctx.Done()
	s()
	return nil
}

func (stopper) NeedLeaderElection() bool { return false }
