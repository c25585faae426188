package apiserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// withoutClasses is a planner's user that may read every kind it needs but
// StorageClasses.
func withoutClasses(t *testing.T, e *apiserver.Env) *rest.Config {
	t.Helper()
	read := []string{"get", "list", "watch"}
	return e.User(t, "planner-without-storageclasses",
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims", "persistentvolumes"}, Verbs: read},
		rbacv1.PolicyRule{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"csidrivers"}, Verbs: read},
		rbacv1.PolicyRule{APIGroups: []string{"snapshot.storage.k8s.io"}, Resources: []string{"volumesnapshotclasses"}, Verbs: read},
		rbacv1.PolicyRule{APIGroups: []string{"cdi.kubevirt.io"}, Resources: []string{"datavolumes", "storageprofiles", "cdis", "cdiconfigs"}, Verbs: read},
	)
}

// classesUnknown is st as a reader that may not read StorageClasses sees it.
func classesUnknown(st *state.State) *state.State {
	cp := *st
	cp.Observed &^= state.StorageClass
	cp.StorageClasses = nil
	return &cp
}

// A Forbidden on StorageClasses leaves them unknown: no pool passes silently
// (each one whose plan needed them warns StateUnverified naming StorageClass)
// and none is refused for it (a refusal stands only where it rests on what was
// read: both classes explicit, the catalog). The disk too small for its golden
// is not refused either: CDI renders the disk's PVC, on a class that must
// exist, before it compares the sizes, so with the classes unknown the size
// proves nothing, and the pool warns instead. Both live readers plan exactly as
// the file with StorageClasses unknown does.
func TestForbiddenStorageClasses(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	cfg := withoutClasses(t, e)
	ps := pools()
	req := plan.NeedsAll(ps)

	cg, err := clientGo(t, cfg, req)
	require.NoError(t, err, "Forbidden is no read failure")
	api, err := client.New(cfg, client.Options{Scheme: apiserver.Scheme()})
	require.NoError(t, err)
	cr, err := controllerRuntime(api, req)
	require.NoError(t, err, "Forbidden is no read failure")
	for name, st := range map[string]*state.State{"client-go": cg, "controller-runtime": cr} {
		assert.False(t, st.Observed.Has(state.StorageClass), "%s leaves StorageClasses unknown, never empty", name)
	}

	full := fromFile(t, e)
	got := agree(t, ps, classesUnknown(full), map[string]*state.State{"client-go": cg, "controller-runtime (API reader)": cr})
	unverified := []string{"StateUnverified storageClass"}
	assert.Equal(t, []verdict{
		{Outcome: plan.Planned, Class: "replicated explicit", Warnings: unverified},
		{Outcome: plan.Planned, Class: "replicated frozen", Warnings: unverified},
		{Outcome: plan.Planned, Class: " cluster", Warnings: unverified},
		{Outcome: plan.Refused, Refusals: []string{"StorageClassMismatch storageClass"}, Warnings: unverified},
		{Outcome: plan.Planned, Class: "replicated explicit", Warnings: unverified},
		{Outcome: plan.Refused, Refusals: []string{"GoldenNotInCatalog osImage.builtin"}, Warnings: unverified},
		{Outcome: plan.Planned, Class: "replicated explicit"},
	}, verdicts(got), "the pool on the cluster default leaves its class to the cluster, and says so")

	for i, w := range plans(ps, full) {
		f := got[i]
		if w.Outcome == plan.Planned {
			assert.Equal(t, plan.Planned, f.Outcome, "%s/%s: no refusal rests on a kind that was not read", f.Namespace, f.Name)
		}
		if w.Outcome == plan.Refused {
			assert.Subset(t, reasons(w.Refusals), reasons(f.Refusals), "%s/%s: no refusal that the full state would not give", f.Namespace, f.Name)
		}
		for _, warning := range f.Warnings {
			if warning.Reason == guard.StateUnverified {
				assert.Equal(t, "StorageClass", warning.Kind, "%s/%s: the warning names the kind", f.Namespace, f.Name)
			}
		}
	}
}

func reasons(rs guard.Refusals) []guard.Reason {
	out := []guard.Reason{}
	for _, r := range rs {
		out = append(out, r.Reason)
	}
	return out
}

// A manager's cache cannot see a Forbidden: its StorageClass informer
// retries the list and never syncs. The read then fails when the
// reconcile's context ends, with an error to requeue on: never a plan
// made on a guess.
func TestForbiddenStorageClassesThroughACache(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	cache := e.Cache(t, withoutClasses(t, e))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := controllerruntime.New(cache).Read(ctx, plan.NeedsAll(pools()))
	require.True(t, apierrors.IsTimeout(err), "the read ends with the context, a timeout seen through the reader's error: %v", err)
	assert.Contains(t, err.Error(), "cannot list StorageClass", "the error names what it could not read")
	assert.Nil(t, st)
}
