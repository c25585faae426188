package controller

import (
	"context"
	"slices"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
)

// valuesObject is one ConfigMap or Secret a catalog release's
// spec.valuesFrom names.
type valuesObject struct {
	Kind, Namespace, Name string
}

// valuesWatches watches, by name, the ConfigMaps and Secrets the catalog
// releases' spec.valuesFrom name, and nothing else: one informer per
// object, listing and watching with a metadata.name field selector (which
// a Role's resourceNames grants), holding its metadata only, never its
// data. A change to one is sent on events; the releases that name it are
// planned again.
type valuesWatches struct {
	client metadata.Interface
	events chan event.TypedGenericEvent[*metav1.PartialObjectMetadata]
	log    logr.Logger

	// done is closed when the watches stop: a change is then sent to
	// no one.
	done chan struct{}

	mu sync.Mutex
	// named are the objects each catalog release names.
	named   map[types.NamespacedName][]valuesObject
	running map[valuesObject]chan struct{}
	stopped bool
}

func newValuesWatches(client metadata.Interface, log logr.Logger) *valuesWatches {
	return &valuesWatches{
		client:  client,
		events:  make(chan event.TypedGenericEvent[*metav1.PartialObjectMetadata], 64),
		log:     log,
		named:   map[types.NamespacedName][]valuesObject{},
		running: map[valuesObject]chan struct{}{},
		done:    make(chan struct{}),
	}
}

// set records the objects release names (none when hr is nil: the release
// is gone), starts a watch on each new one and stops those no release
// names any more.
func (w *valuesWatches) set(release types.NamespacedName, hr *unstructured.Unstructured) {
	var objs []valuesObject
	if hr != nil {
		refs, err := catalogrelease.Refs(hr.Object)
		if err != nil {
			w.log.Info("the catalog release's spec.valuesFrom cannot be read; its objects are not watched", "release", release.String(), "reason", err.Error())
		}
		for _, r := range refs {
			o := valuesObject{Kind: r.Kind, Namespace: release.Namespace, Name: r.Name}
			if !slices.Contains(objs, o) {
				objs = append(objs, o)
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if len(objs) == 0 {
		delete(w.named, release)
	} else {
		w.named[release] = objs
	}
	want := map[valuesObject]bool{}
	for _, os := range w.named {
		for _, o := range os {
			want[o] = true
		}
	}
	for o, stop := range w.running {
		if !want[o] {
			close(stop)
			delete(w.running, o)
		}
	}
	for o := range want {
		if _, ok := w.running[o]; !ok {
			w.running[o] = w.start(o)
		}
	}
}

// naming are the catalog releases that name an object.
func (w *valuesWatches) naming(o valuesObject) []types.NamespacedName {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []types.NamespacedName
	for rel, os := range w.named {
		if slices.Contains(os, o) {
			out = append(out, rel)
		}
	}
	return out
}

// start runs the informer of one object until the returned channel is
// closed. Its first list counts as a change: the release may have been
// read before the watch began.
func (w *valuesWatches) start(o valuesObject) chan struct{} {
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	if o.Kind == "Secret" {
		gvr = corev1.SchemeGroupVersion.WithResource("secrets")
	}
	selector := fields.OneTermEqualSelector("metadata.name", o.Name).String()
	inf := metadatainformer.NewFilteredMetadataInformer(w.client, gvr, o.Namespace, 0, toolscache.Indexers{},
		func(opts *metav1.ListOptions) { opts.FieldSelector = selector }).Informer()
	send := func(obj any) {
		m, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok {
			m = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name}}
		}
		m = m.DeepCopy()
		m.Kind = o.Kind
		select {
		case w.events <- event.TypedGenericEvent[*metav1.PartialObjectMetadata]{Object: m}:
		case <-w.done:
		}
	}
	_, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: send,
		UpdateFunc: func(old, cur any) {
			a, _ := old.(*metav1.PartialObjectMetadata)
			b, _ := cur.(*metav1.PartialObjectMetadata)
			if a == nil || b == nil || a.ResourceVersion != b.ResourceVersion {
				send(cur)
			}
		},
		DeleteFunc: send,
	})
	if err != nil {
		w.log.Error(err, "watch a catalog release's values", "kind", o.Kind, "namespace", o.Namespace, "name", o.Name)
	}
	stop := make(chan struct{})
	go inf.Run(stop)
	w.log.Info("watching a catalog release's values", "kind", o.Kind, "namespace", o.Namespace, "name", o.Name)
	return stop
}

// run stops every watch, for good, when ctx ends.
func (w *valuesWatches) run(ctx context.Context) error {
	<-ctx.Done()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	close(w.done)
	for o, stop := range w.running {
		close(stop)
		delete(w.running, o)
	}
	return nil
}
