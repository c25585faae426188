package controllerruntime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// recheck is how long a kind this identity may not list and watch stays
// refused before it is asked about again: RBAC granted later is seen
// within it.
const recheck = time.Minute

// need is a kind and the verbs a read of it needs.
type need struct {
	kind  state.Kind
	verbs string // "list,watch" or "get"
}

// access remembers, per kind, whether the reader's identity may list and
// watch it cluster-wide, as a cache's informer does.
type access struct {
	reviewer client.Client
	// byName, when set, is the client's ReadsByName: a kind its client
	// gets by name from the API server, not from an informer, needs only
	// get for a Get.
	byName  func(schema.GroupKind) bool
	mu      sync.Mutex
	allowed map[need]bool
	asked   map[need]time.Time
	now     func() time.Time
	// flights shares one review of a kind among the reads that ask at
	// once: the first plans after a start all ask about every kind, and
	// each review is two requests to the API server.
	flights singleflight.Group
}

// known returns what is remembered of kind k and whether it is still
// fresh enough to go by.
func (a *access) known(k need) (ok, fresh bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok, known := a.allowed[k]
	return ok, known && (ok || a.now().Sub(a.asked[k]) < recheck)
}

// check returns a Forbidden error for a kind the identity may not list and
// watch, nil when it may. A review that fails is an error to requeue on.
func (a *access) check(ctx context.Context, kind state.Kind, get bool) error {
	info := kinds.Of(kind)
	gr := schema.GroupResource{Group: info.GVK.Group, Resource: info.Resource}
	k := need{kind, "list,watch"}
	if get && a.byName != nil && a.byName(info.GVK.GroupKind()) {
		k.verbs = "get"
	}
	ok, fresh := a.known(k)
	if !fresh {
		v, err, _ := a.flights.Do(gr.String()+" "+k.verbs, func() (any, error) {
			// A flight that ended just before this one began has
			// answered already.
			if ok, fresh := a.known(k); fresh {
				return ok, nil
			}
			ok, err := a.review(ctx, gr, strings.Split(k.verbs, ","))
			if err != nil {
				return false, err
			}
			a.mu.Lock()
			a.allowed[k], a.asked[k] = ok, a.now()
			a.mu.Unlock()
			return ok, nil
		})
		if err != nil {
			return fmt.Errorf("ask whether %s may be %s: %w", gr, said(k.verbs), err)
		}
		ok = v.(bool)
	}
	if !ok {
		if k.verbs == "get" {
			return apierrors.NewForbidden(gr, "", fmt.Errorf("this identity may not get %s", gr))
		}
		return apierrors.NewForbidden(gr, "", fmt.Errorf("this identity may not list and watch %s in every namespace, so a cache never syncs them", gr))
	}
	return nil
}

// said is how an error names verbs.
func said(verbs string) string {
	if verbs == "get" {
		return "got"
	}
	return "listed and watched"
}

func (a *access) review(ctx context.Context, gr schema.GroupResource, verbs []string) (bool, error) {
	for _, verb := range verbs {
		r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: gr.Group, Resource: gr.Resource, Verb: verb},
		}}
		if err := a.reviewer.Create(ctx, r); err != nil {
			return false, err
		}
		if !r.Status.Allowed {
			return false, nil
		}
	}
	return true, nil
}

// checked is a source that asks access before each read.
type checked struct {
	source
	a *access
}

func (s checked) List(ctx context.Context, k state.Kind, ns string, into *state.State) error {
	if err := s.a.check(ctx, k, false); err != nil {
		return err
	}
	return s.source.List(ctx, k, ns, into)
}

func (s checked) ListDisks(ctx context.Context, k state.Kind, ns string, pools []string, into *state.State) (bool, error) {
	if _, ok := s.source.c.(cache.Informers); !ok || ns == "" {
		return false, nil
	}
	if err := s.a.check(ctx, k, false); err != nil {
		return true, err
	}
	return s.source.ListDisks(ctx, k, ns, pools, into)
}

func (s checked) Get(ctx context.Context, k state.Kind, ns, name string, into *state.State) error {
	if err := s.a.check(ctx, k, true); err != nil {
		return err
	}
	return s.source.Get(ctx, k, ns, name, into)
}
