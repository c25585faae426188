package dvwatch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
)

// dv is a DataVolume as the API server writes it, with what a cache reads
// of it and what it drops: apiVersion and kind, annotations, managedFields,
// a source, storage, a status with conditions; and a key in the wrong case,
// which a case-sensitive decode leaves out.
func dv(name, rv string) string {
	return fmt.Sprintf(`{"apiVersion":"cdi.kubevirt.io/v1beta1","kind":"DataVolume","metadata":{"name":%q,"namespace":"tenant-a","resourceVersion":%q,"uid":"u-%s","generation":2,"creationTimestamp":"2026-01-02T03:04:05Z","annotations":{"cdi.kubevirt.io/storage.usePopulator":"true","kubectl.kubernetes.io/last-applied-configuration":"{}"},"labels":{"app":"x"},"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"cdi.kubevirt.io/v1beta1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}],"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"o","controller":true}]},"spec":{"source":{"pvc":{"namespace":"cozy-public","name":"golden"}},"storage":{"resources":{"requests":{"storage":"20Gi"}},"storageClassName":"replicated","accessModes":["ReadWriteMany"],"volumeMode":"Block"},"Priority":"wrong case"},"status":{"phase":"Succeeded","progress":"100.0%%","restartCount":3,"claimName":%q,"conditions":[{"type":"Running","status":"False","reason":"Completed","lastTransitionTime":"2026-01-02T03:05:05Z","lastHeartbeatTime":"2026-01-02T03:05:05Z"}]}}`, name, rv, name, name)
}

// stream is a watch's body: every kind of event, a bookmark that ends the
// initial events, and an error.
func stream() string {
	var b strings.Builder
	for i, typ := range []string{"ADDED", "MODIFIED", "DELETED"} {
		fmt.Fprintf(&b, `{"type":%q,"object":%s}`+"\n", typ, dv(fmt.Sprintf("disk-%d", i), fmt.Sprint(10+i)))
	}
	b.WriteString(`{"type":"BOOKMARK","object":{"kind":"DataVolume","apiVersion":"cdi.kubevirt.io/v1beta1","metadata":{"resourceVersion":"13","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}},"spec":{}}}` + "\n")
	b.WriteString(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (13)","reason":"Expired","code":410}}` + "\n")
	return b.String()
}

func list() string {
	return fmt.Sprintf(`{"apiVersion":"cdi.kubevirt.io/v1beta1","kind":"DataVolumeList","metadata":{"resourceVersion":"12","continue":""},"items":[%s,%s]}`, dv("a", "1"), dv("b", "2"))
}

func server(t *testing.T) (*rest.Config, *runtime.Scheme) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/cdi.kubevirt.io/v1beta1/datavolumes" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" {
			if r.URL.Query().Get("resourceVersion") == "gone" {
				w.WriteHeader(http.StatusGone)
				fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gone","reason":"Expired","code":410}`)
				return
			}
			fmt.Fprint(w, stream())
			return
		}
		fmt.Fprint(w, list())
	}))
	t.Cleanup(srv.Close)
	s := runtime.NewScheme()
	require.NoError(t, controllerruntime.AddToScheme(s))
	return &rest.Config{Host: srv.URL}, s
}

// What the informer's lists and watches return equals, event by event,
// what client-go returns for the same bytes through controller-runtime's
// REST client of a typed kind.
func TestDecodesAsClientGo(t *testing.T) {
	cfg, s := server(t)
	ctx := context.Background()
	rc, err := apiutil.RESTClientForGVK(dataVolumes, false, false, cfg, serializer.NewCodecFactory(s), http.DefaultClient)
	require.NoError(t, err)
	lw, err := newListWatch(cfg, http.DefaultClient, s)
	require.NoError(t, err)

	opts := metav1.ListOptions{ResourceVersion: "0"}
	want := &cdiv1.DataVolumeList{}
	require.NoError(t, rc.Get().Resource("datavolumes").VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(want))
	got, err := lw.ListWithContext(ctx, opts)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the list")
	require.Len(t, want.Items, 2)
	assert.Equal(t, "20Gi", want.Items[0].Spec.Storage.Resources.Requests.Storage().String(), "the bytes decode at all")

	wopts := metav1.ListOptions{Watch: true, AllowWatchBookmarks: true}
	ref, err := rc.Get().Resource("datavolumes").VersionedParams(&wopts, metav1.ParameterCodec).Watch(ctx)
	require.NoError(t, err)
	mine, err := lw.WatchWithContext(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	var n int
	for w := range ref.ResultChan() {
		g, ok := <-mine.ResultChan()
		require.True(t, ok, "event %d: ended early", n)
		assert.Equal(t, w, g, "event %d", n)
		n++
	}
	_, open := <-mine.ResultChan()
	assert.False(t, open, "ends where client-go's does")
	assert.Equal(t, 5, n, "every event of the stream")

	_, err = lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "gone"})
	_, refErr := rc.Get().Resource("datavolumes").VersionedParams(&metav1.ListOptions{Watch: true, ResourceVersion: "gone"}, metav1.ParameterCodec).Watch(ctx)
	require.Error(t, err)
	assert.Equal(t, refErr.Error(), err.Error(), "an error response")
}

// An event that cannot be decoded ends the watch with an error event; a
// watch stopped ends.
func TestBadEventAndStop(t *testing.T) {
	w := newWatcher(nopCloser(`{"type":"ADDED","object":{"metadata":{"name":5}}}` + "\n"))
	e := <-w.ResultChan()
	assert.Equal(t, watch.Error, e.Type)
	st, ok := e.Object.(*metav1.Status)
	require.True(t, ok)
	assert.Contains(t, st.Message, "unable to decode an event from the watch stream")
	_, open := <-w.ResultChan()
	assert.False(t, open)

	w = newWatcher(nopCloser(`{"type":"WHAT","object":{}}` + "\n"))
	e = <-w.ResultChan()
	assert.Equal(t, watch.Error, e.Type, "an unknown event type")

	pr := newPipe()
	w = newWatcher(pr)
	w.Stop()
	_, open = <-w.ResultChan()
	assert.False(t, open, "stopped: ends")
}

// The informer is this package's only where the options read every
// DataVolume as it is; elsewhere cache.New's own.
func TestOptions(t *testing.T) {
	f := false
	assert.True(t, plain(cache.Options{}))
	assert.True(t, plain(controllerruntime.CacheOptions()), "the planner's transform is applied after the decode")
	assert.False(t, plain(cache.Options{DefaultNamespaces: map[string]cache.Config{"a": {}}}))
	assert.False(t, plain(cache.Options{DefaultEnableWatchBookmarks: &f}))
	assert.False(t, plain(cache.Options{ByObject: map[client.Object]cache.ByObject{&cdiv1.DataVolume{}: {}}}))
	assert.True(t, plain(cache.Options{ByObject: map[client.Object]cache.ByObject{&cdiv1.DataSource{}: {}}}), "another kind's options")
	assert.False(t, plain(cache.Options{NewInformer: func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer {
		return nil
	}}))
}

func nopCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

// newPipe is a body that blocks until closed.
func newPipe() io.ReadCloser {
	r, _ := io.Pipe()
	return r
}
