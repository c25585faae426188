package clusterread

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// claimServer serves PVCs: a list answers one claim "paged"; a watch
// answers as watch says ("stream": the claim "streamed" and the bookmark
// that ends the initial objects; "refuse": 422, as a server that does not
// stream lists; "cut": the claim, then the end of the stream). It records
// each request's kind, "watch" or "list".
func claimServer(t *testing.T, watch string) (*httptest.Server, *[]string) {
	claim := func(name string) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":%q,"namespace":"t"},"spec":{"volumeName":"pv"}}`, name)
	}
	return recordingServer(t, "/api/v1/persistentvolumeclaims", func(w http.ResponseWriter, r *http.Request, verb string) {
		if verb == "list" {
			fmt.Fprintf(w, `{"apiVersion":"v1","kind":"PersistentVolumeClaimList","metadata":{},"items":[%s]}`, claim("paged"))
			return
		}
		assert.Equal(t, "true", r.URL.Query().Get("sendInitialEvents"))
		switch watch {
		case "refuse":
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422}`)
		case "cut":
			fmt.Fprintf(w, `{"type":"ADDED","object":%s}`+"\n", claim("streamed"))
		case "stream":
			fmt.Fprintf(w, `{"type":"ADDED","object":%s}`+"\n", claim("streamed"))
			fmt.Fprint(w, `{"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"resourceVersion":"7","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n")
		}
	})
}

// recordingServer serves every request at path with serve, JSON, and
// records each request's kind, "watch" or "list".
func recordingServer(t *testing.T, path string, serve func(w http.ResponseWriter, r *http.Request, verb string)) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, path, r.URL.Path)
		verb := "list"
		if r.URL.Query().Get("watch") == "true" {
			verb = "watch"
		}
		mu.Lock()
		seen = append(seen, verb)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		serve(w, r, verb)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestListStreamsElsePages(t *testing.T) {
	cases := map[string]struct {
		reason string
		claims []string
		calls  []string
	}{
		"stream": {"a server that streams lists answers the list in one watch", []string{"streamed"}, []string{"watch"}},
		"refuse": {"a server that refuses sendInitialEvents is read by pages", []string{"paged"}, []string{"watch", "list"}},
		"cut":    {"a stream that ends before its bookmark adds nothing: the kind is read by pages", []string{"paged"}, []string{"watch", "list"}},
	}
	for watch, tc := range cases {
		t.Run(watch, func(t *testing.T) {
			srv, seen := claimServer(t, watch)
			cfg := &rest.Config{Host: srv.URL}
			core, err := kubernetes.NewForConfig(cfg)
			require.NoError(t, err)
			dyn, err := dynamic.NewForConfig(cfg)
			require.NoError(t, err)
			st := &state.State{}
			require.NoError(t, ClientGo{Core: core, Dynamic: dyn}.List(context.Background(), state.PersistentVolumeClaim, "", st))
			var names []string
			for _, p := range st.PersistentVolumeClaims {
				names = append(names, p.Name)
				assert.Equal(t, "pv", p.Spec.VolumeName)
			}
			assert.Equal(t, tc.claims, names, tc.reason)
			assert.Equal(t, tc.calls, *seen, tc.reason)
		})
	}
}
