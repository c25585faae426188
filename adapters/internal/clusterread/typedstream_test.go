package clusterread

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// dataVolumeServer serves the DataVolumes dvs: a list as one page, a
// watch as one ADDED event a line, then what tail says ("bookmark": the
// bookmark that ends the initial objects; "": nothing, the end of the
// stream; anything else, that line). It records each request's kind,
// "watch" or "list".
func dataVolumeServer(t *testing.T, dvs []cdiv1.DataVolume, tail string) (*httptest.Server, *[]string) {
	return recordingServer(t, "/apis/cdi.kubevirt.io/v1beta1/datavolumes", func(w http.ResponseWriter, r *http.Request, verb string) {
		enc := json.NewEncoder(w) // a value a line, as the API server writes them
		if verb == "list" {
			assert.NoError(t, enc.Encode(map[string]any{"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolumeList", "metadata": map[string]any{}, "items": dvs}))
			return
		}
		for _, dv := range dvs {
			assert.NoError(t, enc.Encode(map[string]any{"type": "ADDED", "object": dv}))
		}
		switch tail {
		case "":
		case "bookmark":
			fmt.Fprint(w, `{"type":"BOOKMARK","object":{"apiVersion":"cdi.kubevirt.io/v1beta1","kind":"DataVolume","metadata":{"resourceVersion":"7","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n")
		default:
			fmt.Fprint(w, tail+"\n")
		}
	})
}

func readDataVolumes(t *testing.T, cfg *rest.Config) *state.State {
	t.Helper()
	core, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	st := &state.State{}
	require.NoError(t, ClientGo{Core: core, Dynamic: dyn}.List(context.Background(), state.DataVolume, "", st))
	return st
}

// A streamed list of DataVolumes as the server serves them (managedFields,
// CDI's annotations and conditions, one longer than a read's buffer) reads
// as its pages do, buffered or not; a stream that ends before its
// bookmark, an error event and an event with a quantity text to judge
// read the kind by pages.
func TestTypedStreamAsPages(t *testing.T) {
	dvs := fleet.ServedDisks(20, 2).DataVolumes
	dvs[3].Annotations["long"] = strings.Repeat("x", 2*watchBuffer)
	paged, _ := dataVolumeServer(t, dvs, "")
	// The list alone, as a server that refuses a watch: the pages' reading.
	want := readDataVolumes(t, &rest.Config{Host: paged.URL})
	require.Len(t, want.DataVolumes, 20)

	for name, tc := range map[string]struct {
		tail     string
		buffered bool
		calls    []string
	}{
		"bookmark":           {"bookmark", false, []string{"watch"}},
		"bookmark, buffered": {"bookmark", true, []string{"watch"}},
		"cut":                {"", false, []string{"watch", "list"}},
		"error":              {`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410}}`, true, []string{"watch", "list"}},
		"a change first":     {`{"type":"MODIFIED","object":{"metadata":{"name":"x"}}}`, true, []string{"watch", "list"}},
		"not a line":         {`{"type":`, true, []string{"watch", "list"}},
	} {
		t.Run(name, func(t *testing.T) {
			srv, seen := dataVolumeServer(t, dvs, tc.tail)
			cfg := &rest.Config{Host: srv.URL}
			if tc.buffered {
				cfg = BufferWatches(cfg)
			}
			got := readDataVolumes(t, cfg)
			assert.Equal(t, tc.calls, *seen)
			assert.Equal(t, want.DataVolumes, got.DataVolumes)
		})
	}

	t.Run("suspect quantity", func(t *testing.T) {
		odd := append([]cdiv1.DataVolume(nil), dvs...)
		odd[5].Annotations = map[string]string{"x": "1e9"}
		srv, seen := dataVolumeServer(t, odd, "bookmark")
		readDataVolumes(t, BufferWatches(&rest.Config{Host: srv.URL}))
		assert.Equal(t, []string{"watch", "list", "list"}, *seen,
			"the stream is left for the pages: the typed page too, for the unstructured one, which checks the text")
	})
}

// BenchmarkTypedStream reads a streamed list of 2,000 DataVolumes as the
// server serves them, buffered as the CLI reads it.
func BenchmarkTypedStream(b *testing.B) {
	dvs := fleet.ServedDisks(2000, 2).DataVolumes
	var body strings.Builder
	enc := json.NewEncoder(&body)
	for _, dv := range dvs {
		require.NoError(b, enc.Encode(map[string]any{"type": "ADDED", "object": dv}))
	}
	body.WriteString(`{"type":"BOOKMARK","object":{"apiVersion":"cdi.kubevirt.io/v1beta1","kind":"DataVolume","metadata":{"resourceVersion":"7","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n")
	events := body.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(events))
	}))
	b.Cleanup(srv.Close)
	core, err := kubernetes.NewForConfig(BufferWatches(&rest.Config{Host: srv.URL}))
	require.NoError(b, err)
	rc := restOf(core)
	b.SetBytes(int64(len(events)))
	b.ReportAllocs()
	for b.Loop() {
		st := &state.State{}
		if !typedStream(context.Background(), rc, state.DataVolume, "", st) || len(st.DataVolumes) != len(dvs) {
			b.Fatal("not streamed")
		}
	}
}

// A streamed DataVolume's managedFields are passed over, never decoded;
// the rest of its metadata is read.
func TestStreamedDataVolumeMeta(t *testing.T) {
	dv := fleet.ServedDisks(2, 1).DataVolumes[0]
	require.NotEmpty(t, dv.ManagedFields)
	raw, err := json.Marshal(dv)
	require.NoError(t, err)
	var w streamedDataVolume
	require.NoError(t, json.Unmarshal(raw, &w))
	got := w.dataVolume()
	assert.Nil(t, got.ManagedFields)
	var want cdiv1.DataVolume
	require.NoError(t, json.Unmarshal(raw, &want))
	want.ManagedFields = nil
	assert.Equal(t, &want, got)
}
