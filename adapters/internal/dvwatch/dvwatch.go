// Package dvwatch makes a manager's cache whose DataVolume informer decodes
// each object of its lists and watches once.
//
// client-go decodes a watch event of a custom resource four times over: the
// framer finds the event's end, the event is unmarshalled with its object
// as raw bytes, the object's apiVersion and kind are read from those bytes,
// and only then the object is unmarshalled. Filling a cache of 100,000
// DataVolumes, that decoding is most of a process's CPU. This informer
// finds each event's end and unmarshals its object, with the decoder
// client-go's JSON serializer uses (case-sensitive, integers kept), into
// the same objects client-go would return.
package dvwatch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	sigsjson "sigs.k8s.io/json"
)

// readBuffer is how much of a watch's body is read at once: small reads of
// an HTTP/2 stream each return their bytes to the flow-control window.
const readBuffer = 256 << 10

// NewCache is a cache.NewCacheFunc: cache.New's cache, with the
// DataVolume informer described in the package's doc. Where the options
// narrow or replace what that informer reads (namespaces, selectors, the
// DataVolume's own options, an informer of the caller's), it is cache.New's
// own.
func NewCache(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
	if !plain(opts) {
		return cache.New(cfg, opts)
	}
	s := opts.Scheme
	if s == nil {
		s = scheme.Scheme
	}
	hc := opts.HTTPClient
	if hc == nil {
		var err error
		if hc, err = rest.HTTPClientFor(cfg); err != nil {
			return nil, fmt.Errorf("an HTTP client of the API server: %w", err)
		}
	}
	lw, err := newListWatch(cfg, hc, s)
	if err != nil {
		return nil, err
	}
	opts.NewInformer = func(given toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, idx toolscache.Indexers) toolscache.SharedIndexInformer {
		if _, ok := obj.(*cdiv1.DataVolume); ok {
			given = lw
		}
		return toolscache.NewSharedIndexInformer(given, obj, resync, idx)
	}
	return cache.New(cfg, opts)
}

// plain reports whether the options read every DataVolume of the cluster
// as they are, with bookmarks, through no informer of the caller's.
func plain(opts cache.Options) bool {
	if opts.NewInformer != nil || len(opts.DefaultNamespaces) > 0 ||
		opts.DefaultLabelSelector != nil || opts.DefaultFieldSelector != nil ||
		(opts.DefaultEnableWatchBookmarks != nil && !*opts.DefaultEnableWatchBookmarks) {
		return false
	}
	for obj := range opts.ByObject {
		if _, ok := obj.(*cdiv1.DataVolume); ok {
			return false
		}
	}
	return true
}

var dataVolumes = cdiv1.SchemeGroupVersion.WithKind("DataVolume")

// newListWatch lists and watches every DataVolume through a REST client of
// cfg: its errors are decoded as client-go decodes them.
func newListWatch(cfg *rest.Config, hc *http.Client, s *runtime.Scheme) (*toolscache.ListWatch, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	rc, err := apiutil.RESTClientForGVK(dataVolumes, false, false, cfg, serializer.NewCodecFactory(s), hc)
	if err != nil {
		return nil, fmt.Errorf("a REST client of DataVolumes: %w", err)
	}
	resource := "datavolumes"
	return &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			body, err := rc.Get().Resource(resource).VersionedParams(&o, metav1.ParameterCodec).Stream(ctx)
			if err != nil {
				return nil, err
			}
			defer body.Close()
			b, err := io.ReadAll(body)
			if err != nil {
				return nil, err
			}
			return decodeList(b)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.Watch, o.AllowWatchBookmarks = true, true
			var timeout time.Duration
			if o.TimeoutSeconds != nil {
				timeout = time.Duration(*o.TimeoutSeconds) * time.Second
			}
			body, err := rc.Get().Resource(resource).VersionedParams(&o, metav1.ParameterCodec).Timeout(timeout).Stream(ctx)
			if err != nil {
				return nil, err
			}
			return newWatcher(body), nil
		},
	}, nil
}

// decodeList decodes a DataVolumeList as client-go does: the list's own
// apiVersion and kind cleared, its items' kept.
func decodeList(b []byte) (*cdiv1.DataVolumeList, error) {
	l := &cdiv1.DataVolumeList{}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(b, l); err != nil {
		return nil, fmt.Errorf("decode a DataVolumeList: %w", err)
	}
	l.TypeMeta = metav1.TypeMeta{}
	return l, nil
}

// event is a watch event with its object still bytes.
type event struct {
	Type   watch.EventType `json:"type"`
	Object json.RawMessage `json:"object"`
}

// decodeEvent decodes one event's object: a DataVolume with its apiVersion
// and kind cleared, as client-go returns it, or for an ERROR the Status.
func decodeEvent(e event) (watch.Event, error) {
	switch e.Type {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
		dv := &cdiv1.DataVolume{}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(e.Object, dv); err != nil {
			return watch.Event{}, err
		}
		dv.TypeMeta = metav1.TypeMeta{}
		return watch.Event{Type: e.Type, Object: dv}, nil
	case watch.Error:
		st := &metav1.Status{}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(e.Object, st); err != nil {
			return watch.Event{}, err
		}
		st.TypeMeta = metav1.TypeMeta{}
		return watch.Event{Type: e.Type, Object: st}, nil
	}
	return watch.Event{}, fmt.Errorf("got invalid watch event type: %v", e.Type)
}

// decodeReporter reports an event that cannot be decoded as client-go's
// watch does, an error the reflector logs and watches again after.
var decodeReporter = apierrors.NewClientErrorReporter(http.StatusInternalServerError, "GET", "ClientWatchDecoding")

// watcher is a watch.Interface over a watch's body.
type watcher struct {
	body   io.ReadCloser
	result chan watch.Event
	done   chan struct{}
	stop   sync.Once
}

func newWatcher(body io.ReadCloser) *watcher {
	w := &watcher{body: body, result: make(chan watch.Event), done: make(chan struct{})}
	go w.receive()
	return w
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (w *watcher) Stop() {
	w.stop.Do(func() {
		close(w.done)
		w.body.Close()
	})
}

func (w *watcher) receive() {
	defer close(w.result)
	defer w.Stop()
	dec := json.NewDecoder(bufio.NewReaderSize(w.body, readBuffer))
	for {
		var e event
		err := dec.Decode(&e)
		var ev watch.Event
		if err == nil {
			ev, err = decodeEvent(e)
		}
		if err != nil {
			select {
			case <-w.done:
				return
			default:
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || utilnet.IsProbableEOF(err) || utilnet.IsTimeout(err) {
				return
			}
			ev = watch.Event{Type: watch.Error, Object: decodeReporter.AsObject(fmt.Errorf("unable to decode an event from the watch stream: %w", err))}
			select {
			case w.result <- ev:
			case <-w.done:
			}
			return
		}
		select {
		case w.result <- ev:
		case <-w.done:
			return
		}
	}
}
