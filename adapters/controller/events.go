package controller

import (
	"context"

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
// once; the others wait their turn.
type boundedSink struct {
	sink  events.EventSink
	slots chan struct{}
}

func (s boundedSink) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.slots <- struct{}{}
	defer func() { <-s.slots }()
	return s.sink.Create(ctx, e)
}

func (s boundedSink) Update(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.slots <- struct{}{}
	defer func() { <-s.slots }()
	return s.sink.Update(ctx, e)
}

func (s boundedSink) Patch(ctx context.Context, old *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	s.slots <- struct{}{}
	defer func() { <-s.slots }()
	return s.sink.Patch(ctx, old, data)
}

// recorder is an events.k8s.io/v1 recorder for mgr, reporting as Name,
// whose writes are bounded (boundedSink) and which records from now until
// mgr stops.
func recorder(mgr manager.Manager) (events.EventRecorder, error) {
	c, err := eventsv1client.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	b := events.NewBroadcaster(boundedSink{sink: &events.EventSinkImpl{Interface: c}, slots: make(chan struct{}, eventWriters)})
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
