package clusterread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
)

// slow answers in pieces gap apart, pieces of them, after stall.
func slow(t *testing.T, pieces int, gap, stall time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-time.After(stall):
		case <-r.Context().Done():
			return
		}
		for i := range pieces {
			fmt.Fprintf(w, "piece %d\n", i)
			w.(http.Flusher).Flush()
			select {
			case <-time.After(gap):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, cfg *rest.Config, url string) ([]byte, error) {
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// A watch that goes on longer than the timeout, but is never silent that
// long, is read whole; one silent for longer is cut with a timeout. Any
// other request is bounded whole, as the HTTP client's Timeout bounds it.
func TestWatchesBoundedBySilence(t *testing.T) {
	const timeout = 400 * time.Millisecond
	cfg := clusterread.BoundWatchesBySilence(&rest.Config{Timeout: timeout})
	assert.Zero(t, cfg.Timeout, "moved into the transport")
	long := slow(t, 30, 30*time.Millisecond, 0) // about 900 ms in all

	b, err := get(t, cfg, long.URL+"/apis/x/v1/things?watch=true")
	require.NoError(t, err, "a watch longer than the timeout, never silent for it")
	assert.Contains(t, string(b), "piece 29")

	_, err = get(t, cfg, long.URL+"/apis/x/v1/things")
	require.Error(t, err, "the same length, not a watch: bounded whole")
	assert.True(t, errors.Is(err, os.ErrDeadlineExceeded), "a timeout: %v", err)

	silent := slow(t, 2, 10*time.Millisecond, 3*time.Second)
	_, err = get(t, cfg, silent.URL+"/apis/x/v1/things?watch=true")
	require.Error(t, err, "a watch silent for longer than the timeout")
	assert.True(t, errors.Is(err, os.ErrDeadlineExceeded), "a timeout: %v", err)
	assert.Contains(t, err.Error(), "silent for 400ms")

	unbounded := clusterread.BoundWatchesBySilence(&rest.Config{})
	assert.Zero(t, unbounded.Timeout)
	assert.Nil(t, unbounded.WrapTransport, "no timeout: nothing to bound")
	b, err = get(t, unbounded, long.URL+"/apis/x/v1/things")
	require.NoError(t, err)
	assert.Contains(t, string(b), "piece 29")
}
