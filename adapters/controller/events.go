package controller

import (
	"context"
	"sync"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// eventWriters is the most Events the controller writes to the API server
// at once. client-go's broadcaster writes each Event from a goroutine of
// its own: when one change moves the verdict of thousands of pools, that
// is thousands of requests at once, more than an HTTP/2 connection's
// streams, so the client dials (and handshakes) connection after
// connection, holds every request in memory and takes the CPU the
// re-plans need. Bounded, the Events queue and follow the re-plans in the
// order they were recorded, over the manager's one connection.
const eventWriters = 4

// boundedSink is an EventSink that lets at most cap(slots) writes run at
// once; the others wait their turn. With a hold, every write also waits
// for it (hold.wait) once it has its slot.
type boundedSink struct {
	sink  events.EventSink
	slots chan struct{}
	hold  *hold
}

func (s boundedSink) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	defer s.take(ctx)()
	return s.sink.Create(ctx, e)
}

func (s boundedSink) Update(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	defer s.take(ctx)()
	return s.sink.Update(ctx, e)
}

func (s boundedSink) Patch(ctx context.Context, old *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	defer s.take(ctx)()
	return s.sink.Patch(ctx, old, data)
}

// take waits for a slot, then for the hold (the writes waiting for a slot
// when the hold begins are held too), and returns the slot's release.
func (s boundedSink) take(ctx context.Context) func() {
	s.slots <- struct{}{}
	if s.hold != nil {
		s.hold.wait(ctx)
	}
	return func() { <-s.slots }
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
// whose writes are bounded (boundedSink) and wait for h, and which
// records from now until mgr stops.
func recorder(mgr manager.Manager, h *hold) (events.EventRecorder, error) {
	c, err := eventsv1client.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	b := events.NewBroadcaster(boundedSink{sink: &events.EventSinkImpl{Interface: c}, slots: make(chan struct{}, eventWriters), hold: h})
	ctx, cancel := context.WithCancel(context.Background())
	if err := b.StartRecordingToSinkWithContext(ctx); err != nil {
		cancel()
		return nil, err
	}
	if err := mgr.Add(stopper(func() { cancel(); b.Shutdown() })); err != nil {
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
