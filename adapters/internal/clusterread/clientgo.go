package clusterread

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/slim"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// pageSize bounds one list response, as kubectl does: a cluster-wide list of
// every PVC arrives in pages, still one LIST to count.
const pageSize = 500

// clientGoParallel is how many of its calls a client-go read has in
// flight: the lists of PVCs, DataVolumes and the pools' other kinds are
// read side by side, each a stream of pages, rather than one after
// another.
const clientGoParallel = 4

// ReadClientGo reads what req asks for through src, and says why each kind
// it left unknown is. With disc set it asks discovery first which kinds the
// server serves: its error is then a *NotAPIServerError, a *ReadError, or
// discovery's own failure. limit is Options.Limit.
func ReadClientGo(ctx context.Context, src ClientGo, disc discovery.DiscoveryInterface, limit int, req state.Request) (*state.State, []Unread, error) {
	opts := Options{Limit: limit, Parallel: clientGoParallel, PageSize: pageSize}
	if disc != nil {
		d, err := Discover(disc)
		if err != nil {
			return nil, nil, err
		}
		served, err := d.Kinds(requested(req))
		if err != nil {
			return nil, nil, err
		}
		opts.Served = &served
	}
	return ReadWith(ctx, src, req, opts)
}

// ClientGo reads through client-go: the core kinds through a typed
// clientset, the custom resources through a dynamic client (nil leaves them
// unknown, ErrNoClient). Lists are paged.
type ClientGo struct {
	Core    kubernetes.Interface
	Dynamic dynamic.Interface
}

var _ Source = ClientGo{}

func (s ClientGo) List(ctx context.Context, k state.Kind, ns string, into *state.State) error {
	if rc := restOf(s.Core); rc != nil {
		// A streaming list (typedStream) where the server serves one.
		switch {
		case k == state.PersistentVolumeClaim && coreStream(ctx, s.Core.CoreV1().PersistentVolumeClaims(ns), &into.PersistentVolumeClaims),
			k == state.PersistentVolume && coreStream(ctx, s.Core.CoreV1().PersistentVolumes(), &into.PersistentVolumes),
			s.Dynamic != nil && typedStream(ctx, rc, k, ns, into):
			return nil
		}
	}
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		next, err := s.page(ctx, k, ns, opts, into)
		if err != nil || next == "" {
			return err
		}
		opts.Continue = next
	}
}

// page reads one page of a list and returns the continue token. Each
// object is slimmed as a cache slims it (package slim), page by page, so
// that a list of 100,000 disks is never held whole.
func (s ClientGo) page(ctx context.Context, k state.Kind, ns string, opts metav1.ListOptions, into *state.State) (string, error) {
	core := s.Core
	switch k {
	case state.StorageClass:
		l, err := core.StorageV1().StorageClasses().List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.StorageClasses = appendSlim(into.StorageClasses, l.Items)
		return l.Continue, nil
	case state.PersistentVolumeClaim:
		l, err := core.CoreV1().PersistentVolumeClaims(ns).List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.PersistentVolumeClaims = appendSlim(into.PersistentVolumeClaims, l.Items)
		return l.Continue, nil
	case state.CSIDriver:
		l, err := core.StorageV1().CSIDrivers().List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.CSIDrivers = appendSlim(into.CSIDrivers, l.Items)
		return l.Continue, nil
	case state.PersistentVolume:
		l, err := core.CoreV1().PersistentVolumes().List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.PersistentVolumes = appendSlim(into.PersistentVolumes, l.Items)
		return l.Continue, nil
	}
	if s.Dynamic == nil {
		return "", ErrNoClient
	}
	if rc := restOf(core); rc != nil {
		if next, ok, err := typedPage(ctx, rc, k, ns, opts, into); ok {
			return next, err
		}
	}
	info := kinds.Of(k)
	l, err := s.Dynamic.Resource(info.GVR()).Namespace(ns).List(ctx, opts)
	if err != nil {
		return "", err
	}
	for i := range l.Items {
		if _, err := slim.Transform(&l.Items[i]); err != nil {
			return "", err
		}
		if err := kinds.AppendUnstructured(into, k, l.Items[i].Object); err != nil {
			return "", err
		}
		slimLast(into, k)
	}
	return l.GetContinue(), nil
}

// coreStream reads every object of a core kind as typedStream reads a
// custom resource, through the typed client (protobuf), each slimmed; it
// reports false, having added nothing, where typedStream does.
func coreStream[T any, P interface {
	*T
	runtime.Object
}](ctx context.Context, c interface {
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}, into *[]T) bool {
	initial := true
	w, err := c.Watch(ctx, metav1.ListOptions{
		SendInitialEvents:    &initial,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		return false
	}
	defer w.Stop()
	var part []T
	for ev := range w.ResultChan() {
		o, ok := ev.Object.(P)
		if !ok {
			return false // an error
		}
		switch ev.Type {
		case watch.Added:
			_, _ = slim.Transform(o) // an object always slims
			part = append(part, *o)
		case watch.Bookmark:
			m, err := meta.Accessor(o)
			if err != nil {
				return false
			}
			if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				*into = join(*into, part)
				return true
			}
		default:
			return false
		}
	}
	return false // the watch ended before the initial objects did
}

// slimLast slims the object of kind k last appended to into from its
// unstructured form, as the typed path slims it, so that a page read
// either way holds the same. Slimming is idempotent.
func slimLast(into *state.State, k state.Kind) {
	switch k {
	case state.DataVolume:
		slimTail(into.DataVolumes)
	case state.StorageProfile:
		slimTail(into.StorageProfiles)
	case state.CDI:
		slimTail(into.CDIs)
	case state.CDIConfig:
		slimTail(into.CDIConfigs)
	case state.VolumeSnapshotClass:
		slimTail(into.VolumeSnapshotClasses)
	}
}

func slimTail[T any](objs []T) {
	if len(objs) > 0 {
		_, _ = slim.Transform(&objs[len(objs)-1]) // an object always slims
	}
}

// appendSlim appends items to dst, each slimmed.
func appendSlim[T any](dst, items []T) []T {
	for i := range items {
		_, _ = slim.Transform(&items[i]) // an object always slims
	}
	return append(dst, items...)
}

func (s ClientGo) Get(ctx context.Context, k state.Kind, ns, name string, into *state.State) error {
	core := s.Core
	var opts metav1.GetOptions
	switch k {
	case state.StorageClass:
		o, err := core.StorageV1().StorageClasses().Get(ctx, name, opts)
		if err == nil {
			into.StorageClasses = append(into.StorageClasses, *o)
		}
		return err
	case state.PersistentVolumeClaim:
		o, err := core.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, opts)
		if err == nil {
			into.PersistentVolumeClaims = append(into.PersistentVolumeClaims, *o)
		}
		return err
	case state.CSIDriver:
		o, err := core.StorageV1().CSIDrivers().Get(ctx, name, opts)
		if err == nil {
			into.CSIDrivers = append(into.CSIDrivers, *o)
		}
		return err
	case state.PersistentVolume:
		o, err := core.CoreV1().PersistentVolumes().Get(ctx, name, opts)
		if err == nil {
			into.PersistentVolumes = append(into.PersistentVolumes, *o)
		}
		return err
	}
	if s.Dynamic == nil {
		return ErrNoClient
	}
	o, err := s.Dynamic.Resource(kinds.Of(k).GVR()).Namespace(ns).Get(ctx, name, opts)
	if err != nil {
		return err
	}
	return kinds.AppendUnstructured(into, k, o.Object)
}

// requested is the kinds req reads.
func requested(req state.Request) state.Kind {
	var k state.Kind
	for _, r := range append(req.Lists, req.Gets...) {
		k |= r.Kind
	}
	return k
}
