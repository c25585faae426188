package controller_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func fromMap(m any, into any) error {
	obj, _ := m.(map[string]any)
	return runtime.DefaultUnstructuredConverter.FromUnstructured(obj, into)
}

// withWatch is an uncached admin client that interceptor.NewClient can
// wrap.
func withWatch(t *testing.T, e *apiserver.Env) client.WithWatch {
	t.Helper()
	c, err := client.NewWithWatch(e.Config, client.Options{Scheme: e.Client.Scheme(), Mapper: e.Client.RESTMapper()})
	require.NoError(t, err)
	return c
}

// readerFunc is a state.Reader made of a func: a fake beside the real
// readers, for what a cluster cannot be made to do on cue.
type readerFunc func(context.Context, state.Request) (*state.State, error)

func (f readerFunc) Read(ctx context.Context, req state.Request) (*state.State, error) {
	return f(ctx, req)
}
