package cli

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// A run's clients send up to clientQPS requests a second, not client-go's
// 5: a cluster's pages are read without waiting on the limiter. A
// configuration that sets its own rate is kept.
func TestClientRate(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api":
			_, _ = w.Write([]byte(`{"kind":"APIVersions","versions":["v1"]}`))
		case "/apis":
			_, _ = w.Write([]byte(`{"kind":"APIGroupList","groups":[]}`))
		case "/api/v1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"persistentvolumeclaims","namespaced":true,"kind":"PersistentVolumeClaim","verbs":["get","list"]}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(api.Close)
	a := &app{}
	c, err := a.connectConfig("test", "default", &rest.Config{Host: api.URL})
	require.NoError(t, err)
	assert.Equal(t, float32(clientQPS), c.core.CoreV1().RESTClient().GetRateLimiter().QPS())

	own := flowcontrol.NewTokenBucketRateLimiter(7, 7)
	c, err = a.connectConfig("test", "default", &rest.Config{Host: api.URL, RateLimiter: own})
	require.NoError(t, err)
	assert.Equal(t, float32(7), c.core.CoreV1().RESTClient().GetRateLimiter().QPS(), "a limiter of the caller's is kept")
}
