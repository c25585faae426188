package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// setDefaults gives each named StorageClass exactly the default
// annotations listed ("true"), dropping the others, and returns the
// classes as written.
func setDefaults(t *testing.T, e *apiserver.Env, defaults map[string][]string) []client.Object {
	t.Helper()
	var out []client.Object
	for _, name := range []string{fixtures.ReplicatedClass, fixtures.LocalClass, fixtures.LegacyClass} {
		var sc storagev1.StorageClass
		require.NoError(t, e.Client.Get(context.Background(), client.ObjectKey{Name: name}, &sc))
		for _, a := range []string{storage.VirtDefaultAnnotation, storage.DefaultAnnotation, storage.BetaDefaultAnnotation} {
			delete(sc.Annotations, a)
		}
		for _, a := range defaults[name] {
			if sc.Annotations == nil {
				sc.Annotations = map[string]string{}
			}
			sc.Annotations[a] = "true"
		}
		require.NoError(t, e.Client.Update(context.Background(), &sc))
		out = append(out, &sc)
	}
	return out
}

// Moving the default StorageClass never refuses a pool whose bound disks
// are on the golden's class: its class is frozen from them. A new pool on
// "" follows the default, as its first clone would: refused when the
// default leaves the golden's class or when there is none, planned again
// when a virt default (CDI's first tier) brings it back.
func TestMovingTheDefaultStorageClass(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	t.Cleanup(func() {
		setDefaults(t, e, map[string][]string{
			fixtures.ReplicatedClass: {storage.DefaultAnnotation},
			fixtures.LegacyClass:     {storage.BetaDefaultAnnotation},
		})
	})
	cloned := fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)
	cloned.Spec.StorageClass = ""
	fresh := fleet.BuiltinPool(fixtures.OtherNamespace, "db")
	fresh.Spec.StorageClass = ""
	ps := []plan.Pool{cloned, fresh}
	req := plan.NeedsAll(ps)
	cache := e.Cache(t, e.Config)

	frozen := verdict{Outcome: plan.Planned, Class: "replicated frozen"}
	steps := []struct {
		reason   string
		defaults map[string][]string
		fresh    verdict
	}{{
		reason: "the fixture: replicated is the GA default, legacy an older beta one",
		defaults: map[string][]string{
			fixtures.ReplicatedClass: {storage.DefaultAnnotation},
			fixtures.LegacyClass:     {storage.BetaDefaultAnnotation},
		},
		fresh: verdict{Outcome: plan.Planned, Class: "replicated default"},
	}, {
		reason:   "the GA default moves to local, away from the golden's class",
		defaults: map[string][]string{fixtures.LocalClass: {storage.DefaultAnnotation}, fixtures.LegacyClass: {storage.BetaDefaultAnnotation}},
		fresh:    verdict{Outcome: plan.Refused, Refusals: []string{"StorageClassMismatch storageClass"}},
	}, {
		reason: "a virt default on replicated outranks the GA default on local",
		defaults: map[string][]string{
			fixtures.ReplicatedClass: {storage.VirtDefaultAnnotation},
			fixtures.LocalClass:      {storage.DefaultAnnotation},
		},
		fresh: verdict{Outcome: plan.Planned, Class: "replicated default"},
	}, {
		reason:   "no default at all",
		defaults: map[string][]string{},
		fresh:    verdict{Outcome: plan.Refused, Refusals: []string{"DefaultStorageClassUnresolvable storageClass"}},
	}}
	for _, step := range steps {
		t.Run(step.reason, func(t *testing.T) {
			apiserver.WaitCached(t, cache, setDefaults(t, e, step.defaults)...)
			cg, err := clientGo(t, e.Config, req)
			require.NoError(t, err)
			cr, err := controllerRuntime(cache, req)
			require.NoError(t, err)
			got := agree(t, ps, fromFile(t, e), map[string]*state.State{"client-go": cg, "controller-runtime (cache)": cr})
			assert.Equal(t, []verdict{frozen, step.fresh}, verdicts(got), "the pool that has cloned stays planned")
		})
	}
}
