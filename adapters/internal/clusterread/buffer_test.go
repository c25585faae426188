package clusterread

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A watch's body is read through a buffer of watchBuffer, a list's as it
// comes; a wrap the config had is kept under it.
func TestBufferWatches(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "body")
	}))
	t.Cleanup(srv.Close)
	wrapped := 0
	cfg := &rest.Config{Host: srv.URL, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		wrapped++
		return rt
	}}
	c, err := rest.HTTPClientFor(BufferWatches(cfg))
	require.NoError(t, err)
	assert.Equal(t, 1, wrapped, "the config's own wrap is kept")
	for query, buffered := range map[string]bool{"?watch=true&sendInitialEvents=true": true, "?limit=500": false} {
		resp, err := c.Get(srv.URL + "/api/v1/persistentvolumeclaims" + query)
		require.NoError(t, err)
		b, ok := resp.Body.(bufferedBody)
		if assert.Equal(t, buffered, ok, query) && ok {
			assert.Equal(t, watchBuffer, b.Size())
		}
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, "body", string(got), query)
		require.NoError(t, resp.Body.Close())
	}
	plain, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	resp, err := plain.Get(srv.URL + "/api/v1/persistentvolumeclaims?watch=true")
	require.NoError(t, err)
	_, ok := resp.Body.(bufferedBody)
	assert.False(t, ok, "cfg is not changed")
	require.NoError(t, resp.Body.Close())
}

// The streams of a buffered config read as an unbuffered one's.
func TestBufferedStream(t *testing.T) {
	srv, seen := claimServer(t, "stream")
	cfg := BufferWatches(&rest.Config{Host: srv.URL})
	core, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	st := &state.State{}
	require.NoError(t, ClientGo{Core: core, Dynamic: dyn}.List(context.Background(), state.PersistentVolumeClaim, "", st))
	require.Len(t, st.PersistentVolumeClaims, 1)
	assert.Equal(t, "streamed", st.PersistentVolumeClaims[0].Name)
	assert.Equal(t, []string{"watch"}, *seen)
}
