package clusterread

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Cause is why a read left a kind unknown.
type Cause string

const (
	// Forbidden: the credentials may not read it (RBAC).
	Forbidden Cause = "forbidden"
	// NotServed: the server does not serve it (CDI not installed).
	NotServed Cause = "not served"
	// NoClient: the reader has no client for it.
	NoClient Cause = "no client"
)

// Unread is a kind a read left unknown, and why: what StateUnverified's
// cause says, so that a user knows which permission is missing or what is
// not installed.
type Unread struct {
	Kind  state.Kind
	Cause Cause
	// Verb, Namespace and Name are the call that was refused (Forbidden).
	Verb      Verb
	Namespace string
	Name      string
	// Detail is what discovery found instead of the kind (NotServed), when
	// it was asked.
	Detail string
}

// String reads, for example, "forbidden: cannot list
// storageclasses.storage.k8s.io (cluster-wide)", "forbidden: cannot get
// persistentvolumeclaims in namespace cozy-public", "not served: the API
// server serves no group cdi.kubevirt.io".
func (u Unread) String() string {
	resource := kinds.Of(u.Kind).GVR().GroupResource().String()
	switch u.Cause {
	case Forbidden:
		where := "(cluster-wide)"
		if u.Namespace != "" {
			where = "in namespace " + u.Namespace
		}
		return fmt.Sprintf("forbidden: cannot %s %s %s", u.Verb, resource, where)
	case NotServed:
		if u.Detail != "" {
			return "not served: " + u.Detail
		}
		return fmt.Sprintf("not served: the API server does not serve %s", resource)
	}
	return fmt.Sprintf("%s: %s", u.Cause, resource)
}

// refusedRead is the Unread of a call refused with err.
func refusedRead(c Call, err error) Unread {
	if errors.Is(err, ErrNoClient) {
		return Unread{Kind: c.Kind, Cause: NoClient}
	}
	return Unread{Kind: c.Kind, Cause: Forbidden, Verb: c.Verb, Namespace: c.Namespace, Name: c.Name}
}

// unreadSet keeps the first Unread of each kind, cause and namespace:
// every namespace a kind was refused in is said, so that one run names
// every grant that is missing.
type unreadSet struct {
	seen map[unreadKey]bool
	list []Unread
}

type unreadKey struct {
	kind      state.Kind
	cause     Cause
	namespace string
}

func (s *unreadSet) add(u Unread) {
	k := unreadKey{u.Kind, u.Cause, u.Namespace}
	if s.seen[k] {
		return
	}
	if s.seen == nil {
		s.seen = map[unreadKey]bool{}
	}
	s.seen[k] = true
	s.list = append(s.list, u)
}
