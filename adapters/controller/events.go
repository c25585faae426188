package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/reference"
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

// queuedSink queues the Events recorded and returns at once; a few
// writers (run) create them in the order they were recorded, each once no
// change waits to be planned again (hold). The queue is bounded: past
// eventsQueued the oldest is dropped, and counted.
type queuedSink struct {
	sink       eventCreator
	hold       *hold
	writers    int
	bound      int
	tries      int
	retryAfter time.Duration
	dropped    *prometheus.CounterVec
	log        logr.Logger

	mu    sync.Mutex
	queue []*eventsv1.Event
	more  chan struct{} // has a token when a write may be queued
	full  int           // writes dropped since the queue was last not full
}

// eventCreator creates an Event: the API server's events.k8s.io/v1
// Events (apiEvents), or a test's.
type eventCreator interface {
	Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error)
}

// apiEvents creates Events through c.
type apiEvents struct{ c eventsv1client.EventsGetter }

func (a apiEvents) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return a.c.Events(e.Namespace).Create(ctx, e, metav1.CreateOptions{})
}

func newQueuedSink(sink eventCreator, h *hold, dropped *prometheus.CounterVec, log logr.Logger) *queuedSink {
	return &queuedSink{
		sink: sink, hold: h, writers: eventWriters, bound: eventsQueued,
		tries: eventTries, retryAfter: eventRetryAfter, dropped: dropped, log: log,
		more: make(chan struct{}, 1),
	}
}

// enqueue queues e's creation.
func (s *queuedSink) enqueue(e *eventsv1.Event) {
	s.mu.Lock()
	if len(s.queue) >= s.bound {
		old := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.full++
		if s.full == 1 || s.full%1000 == 0 {
			s.log.Info("Event queue full: dropping the oldest", "queued", s.bound, "dropped", s.full,
				"namespace", old.Regarding.Namespace, "name", old.Regarding.Name, "reason", old.Reason)
		}
		s.dropped.WithLabelValues(droppedQueueFull).Inc()
	} else {
		s.full = 0
	}
	s.queue = append(s.queue, e)
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
func (s *queuedSink) next(ctx context.Context) (*eventsv1.Event, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			w := s.queue[0]
			s.queue[0] = nil
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
			return nil, false
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

// write creates e, trying again, s.retryAfter (jittered) apart, while it
// fails transiently, at most s.tries times; an Event dropped is counted.
func (s *queuedSink) write(ctx context.Context, e *eventsv1.Event) {
	for try := 1; ; try++ {
		err := s.writeOnce(ctx, e)
		if err == nil || ctx.Err() != nil {
			return
		}
		ns, name := e.Regarding.Namespace, e.Regarding.Name
		if !transient(err) {
			s.log.Error(err, "Event rejected: dropped", "namespace", ns, "name", name, "reason", e.Reason)
			s.dropped.WithLabelValues(droppedRejected).Inc()
			return
		}
		if try >= s.tries {
			s.log.Error(err, "Event not written after retrying: dropped", "namespace", ns, "name", name, "reason", e.Reason, "tries", try)
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

// writeOnce creates e once: an Event found created already (a try that
// timed out after the API server wrote it) is written.
func (s *queuedSink) writeOnce(ctx context.Context, e *eventsv1.Event) error {
	ctx, cancel := context.WithTimeout(ctx, eventTimeout)
	defer cancel()
	_, err := s.sink.Create(ctx, e)
	if apierrors.IsAlreadyExists(err) {
		return nil // an Event's name is its object's and its time of recording
	}
	return err
}

// transient reports whether a write failed with err may succeed if tried
// again: the API server unreachable, overloaded or timing out.
func transient(err error) bool {
	var construct *rest.RequestConstructionError
	var status apierrors.APIStatus
	switch {
	case errors.As(err, &construct):
		return false
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
// whose Events are queued (queuedSink), wait for h and are counted in
// dropped when lost, and which records from now until mgr stops.
//
// Each Event is created once and kept no longer: the controller records
// one only when a verdict changes, so it needs none of the series that
// client-go's broadcaster counts recurring Events into, for which the
// broadcaster keeps a copy of every Event for six minutes or more (at
// 10,000 pools planned at a start, 10,000 copies) and hands each to two
// goroutines of its own.
func recorder(mgr manager.Manager, h *hold, dropped *prometheus.CounterVec) (events.EventRecorder, error) {
	c, err := eventsv1client.NewForConfigAndClient(apiclient.Config(mgr.GetConfig()), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	log := mgr.GetLogger().WithName(Name).WithName("events")
	s := newQueuedSink(apiEvents{c}, h, dropped, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.run(ctx) }()
	if err := mgr.Add(stopper(func() { cancel(); <-done })); err != nil {
		cancel()
		return nil, err
	}
	return newEventRecorder(mgr.GetScheme(), s, log), nil
}

// eventRecorder makes each Event recorded, as client-go's recorder does
// (k8s.io/client-go/tools/events, recorderImpl.makeEvent), and queues it.
type eventRecorder struct {
	scheme               *runtime.Scheme
	controller, instance string
	queue                *queuedSink
	log                  logr.Logger
	now                  func() time.Time
}

var _ events.EventRecorder = (*eventRecorder)(nil)

func newEventRecorder(scheme *runtime.Scheme, s *queuedSink, log logr.Logger) *eventRecorder {
	host, _ := os.Hostname()
	return &eventRecorder{scheme: scheme, controller: Name, instance: Name + "-" + host, queue: s, log: log, now: time.Now}
}

// Eventf queues an Event regarding regarding (and related, when it is not
// nil). An object the scheme cannot refer to, or a type neither Normal nor
// Warning, records nothing, and is logged.
func (r *eventRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	ref, err := reference.GetReference(r.scheme, regarding)
	if err != nil {
		r.log.Error(err, "no Event recorded: its object cannot be referred to", "reason", reason)
		return
	}
	if eventtype != corev1.EventTypeNormal && eventtype != corev1.EventTypeWarning {
		r.log.Error(nil, "no Event recorded: its type is neither Normal nor Warning", "type", eventtype, "reason", reason)
		return
	}
	var rel *corev1.ObjectReference
	if related != nil {
		if rel, err = reference.GetReference(r.scheme, related); err != nil {
			rel = nil
		}
	}
	ns := ref.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	now := r.now()
	r.queue.enqueue(&eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: fmt.Sprintf("%v.%x", ref.Name, now.UnixNano()), Namespace: ns},
		EventTime:           metav1.NewMicroTime(now),
		ReportingController: r.controller,
		ReportingInstance:   r.instance,
		Action:              action,
		Reason:              reason,
		Regarding:           *ref,
		Related:             rel,
		Note:                fmt.Sprintf(note, args...),
		Type:                eventtype,
	})
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
