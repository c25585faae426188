package apiserver_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/clientgo"
	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// fromFile is the State of the manifests adapter over what an admin's
// kubectl get -A -o yaml prints of the server's objects right now: the
// reference the live adapters are held to.
func fromFile(t *testing.T, e *apiserver.Env) *state.State {
	t.Helper()
	rr, err := manifests.Read("state.yaml", bytes.NewReader(fixtures.ListYAML(e.Objects(t)...)))
	st, notes := rr.State, rr.Notes
	require.NoError(t, err)
	require.Empty(t, notes)
	return st
}

// clientGo reads req through client-go as the user of cfg.
func clientGo(t *testing.T, cfg *rest.Config, req state.Request) (*state.State, error) {
	t.Helper()
	core, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return clientgo.New(core, dyn).Read(context.Background(), req)
}

// controllerRuntime reads req through a controller-runtime reader: a
// manager's cache, or an uncached client (mgr.GetAPIReader()).
func controllerRuntime(r client.Reader, req state.Request) (*state.State, error) {
	return controllerruntime.New(r).Read(context.Background(), req)
}

// plans plans pools against st and the default catalog. A plan compares
// whole, refusals and warnings included, messages too.
func plans(pools []plan.Pool, st *state.State) []plan.Result {
	return plan.PlanAll(pools, fleet.DefaultCatalog(), state.NewSnapshot(st))
}

// agree checks that every live State plans pools exactly as the file's
// does (same disks, classes, refusals and warnings, messages included),
// and returns the file's plans.
func agree(t *testing.T, pools []plan.Pool, file *state.State, live map[string]*state.State) []plan.Result {
	t.Helper()
	want := plans(pools, file)
	for name, st := range live {
		assert.Equal(t, want, plans(pools, st), "%s plans as the manifests adapter does on the same objects", name)
	}
	return want
}

// verdict is what a test expects of one pool's plan.
type verdict struct {
	Outcome  plan.Outcome
	Class    string
	Refusals []string
	Warnings []string
}

func verdictOf(p plan.Result) verdict {
	v := verdict{Outcome: p.Outcome, Class: p.StorageClass.Name + " " + string(p.StorageClass.From)}
	for _, f := range p.Refusals {
		v.Refusals = append(v.Refusals, string(f.Reason)+" "+f.Field)
	}
	for _, w := range p.Warnings {
		v.Warnings = append(v.Warnings, string(w.Reason)+" "+w.Field)
	}
	if p.Outcome == plan.Refused {
		v.Class = ""
	}
	return v
}

func verdicts(ps []plan.Result) []verdict {
	out := make([]verdict, len(ps))
	for i, p := range ps {
		out[i] = verdictOf(p)
	}
	return out
}
