package controllerruntime

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A kind the identity may not list and watch is unknown at once, without
// a read of it (through a cache, that read would wait until the context
// ends); the others are read; the refusal is asked again after a minute.
func TestReviewerRefusesUnwatchableKinds(t *testing.T) {
	denied := map[string]bool{"storageclasses": true}
	var reviews, classReads int
	funcs := interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if r, ok := obj.(*authorizationv1.SelfSubjectAccessReview); ok {
				reviews++
				r.Status.Allowed = !denied[r.Spec.ResourceAttributes.Resource]
				return nil
			}
			return c.Create(ctx, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*storagev1.StorageClassList); ok {
				classReads++
			}
			return c.List(ctx, list, opts...)
		},
	}
	c := fixtures.ControllerRuntime(funcs, fixtures.Cluster()...)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &Reader{Client: c, Reviewer: c}
	r.once.Do(func() {
		r.access = &access{reviewer: c, allowed: map[need]bool{}, asked: map[need]time.Time{}, now: func() time.Time { return now }}
	})
	pool := fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)
	st, err := r.Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	assert.False(t, st.Observed.Has(state.StorageClass), "refused by review: unknown")
	assert.True(t, st.Observed.Has(state.CDIConfig), "allowed: read")
	assert.Zero(t, classReads, "a refused kind is never read")
	first := reviews
	assert.Positive(t, first)

	_, err = r.Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	assert.Equal(t, first, reviews, "within a minute nothing is asked again")

	denied["storageclasses"] = false
	now = now.Add(time.Minute)
	st, err = r.Read(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	assert.True(t, st.Observed.Has(state.StorageClass), "granted since: read after the minute")
	assert.Equal(t, first+2, reviews, "only the refused kind is asked again (list and watch)")
}

// Reads that ask about the same kinds at once, as the first plans after a
// start do, share each kind's review rather than make one each: a kind is
// asked about once (a list and a watch), however many read it together.
func TestReviewsInFlightAreShared(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	gate := make(chan struct{})
	funcs := interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if r, ok := obj.(*authorizationv1.SelfSubjectAccessReview); ok {
				mu.Lock()
				asked[r.Spec.ResourceAttributes.Resource]++
				mu.Unlock()
				<-gate
				r.Status.Allowed = true
				return nil
			}
			return c.Create(ctx, obj, opts...)
		},
	}
	c := fixtures.ControllerRuntime(funcs, fixtures.Cluster()...)
	r := &Reader{Client: c, Reviewer: c}
	req := plan.Needs(fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName))
	const readers = 16
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Read(context.Background(), req)
			errs <- err
		}()
	}
	// The readers meet at the first review; without sharing, each makes
	// its own.
	time.Sleep(100 * time.Millisecond)
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NotEmpty(t, asked)
	for resource, n := range asked {
		assert.Equal(t, 2, n, "%s: a list and a watch, asked once for %d readers", resource, readers)
	}
}

// byName is a client that says it gets PersistentVolumes by name.
type byName struct{ client.Client }

func (byName) ReadsByName(gk schema.GroupKind) bool { return gk.Kind == "PersistentVolume" }

// A Get of a kind the client reads by name is asked about get alone: an
// identity that may get PersistentVolumes but not list them reads them;
// one that may not get them has them unknown. Through a client that says
// nothing of it, list and watch are asked, as for every kind.
func TestReviewerAsksGetForKindsReadByName(t *testing.T) {
	for _, tc := range []struct {
		name     string
		byName   bool
		mayGet   bool
		mayList  bool
		observed bool
		verbs    []string
	}{
		{"read by name, may get, may not list", true, true, false, true, []string{"get"}},
		{"read by name, may not get", true, false, true, false, []string{"get"}},
		{"through the cache, may get, may not list", false, true, false, false, []string{"list"}},
		{"through the cache, may list and watch", false, false, true, true, []string{"list", "watch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var verbs []string
			funcs := interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					if r, ok := obj.(*authorizationv1.SelfSubjectAccessReview); ok {
						a := r.Spec.ResourceAttributes
						if a.Resource != "persistentvolumes" {
							r.Status.Allowed = true
							return nil
						}
						verbs = append(verbs, a.Verb)
						r.Status.Allowed = map[string]bool{"get": tc.mayGet, "list": tc.mayList, "watch": tc.mayList}[a.Verb]
						return nil
					}
					return c.Create(ctx, obj, opts...)
				},
			}
			c := fixtures.ControllerRuntime(funcs, fixtures.Cluster()...)
			var read client.Reader = c
			if tc.byName {
				read = byName{c}
			}
			r := &Reader{Client: read, Reviewer: c}
			st, err := r.Read(context.Background(), plan.Needs(fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)))
			require.NoError(t, err)
			assert.Equal(t, tc.observed, len(st.PersistentVolumes) > 0, "the golden's volume read")
			assert.Equal(t, tc.verbs, verbs, "the verbs asked about")
		})
	}
}
