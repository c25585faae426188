package clusterread

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// ReadError is a read that failed for a reason that says nothing about the
// cluster's objects (a timeout, a server error, a cancelled context, bad
// credentials): retry it rather than plan on a partial view. It unwraps to
// the client's error, so apierrors.IsTimeout and friends see through it.
type ReadError struct {
	Verb      Verb
	Kind      state.Kind
	Namespace string
	Name      string
	Err       error
}

func (e *ReadError) Error() string {
	what := e.Kind.String()
	switch {
	case e.Verb == Get && e.Namespace != "":
		what = fmt.Sprintf("%s %s/%s", e.Kind, e.Namespace, e.Name)
	case e.Verb == Get:
		what = fmt.Sprintf("%s %s", e.Kind, e.Name)
	case e.Namespace != "":
		what = fmt.Sprintf("%s in namespace %s", e.Kind, e.Namespace)
	}
	return fmt.Sprintf("cannot %s %s: %v", e.Verb, what, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ErrNoClient is what a Source returns for a kind it has no client for:
// the kind stays unknown.
var ErrNoClient = errors.New("no client for this kind")

type outcome int

const (
	failed    outcome = iota // retry
	read                     // the objects are in the State
	absent                   // a get found no object of that name
	refused                  // no permission: the kind stays unknown
	notServed                // the server does not serve the kind: unknown
)

// classify sorts the error of a call.
//
// Without discovery, a kind the server does not serve (CDI not installed, its
// CRD being installed, a RESTMapper not yet refreshed) shows as a 404 on its
// list or a no-match: unknown, not empty, since a 404 on a list proves no
// object absent, and a refusal must not rest on it. Nothing degrades for it: a
// worker disk is a DataVolume, which a cluster without CDI cannot accept.
//
// With discovery (discovered), a kind is not served only when discovery
// says so, and its calls are never made: a 404 on a kind it serves is a
// server that does not answer as discovery said (a proxy, a wrong path),
// a failed read.
//
// A get's NotFound proves the object absent only when the server said so
// about that object; the plain "404 page not found" of a path the server
// does not route is the kind not being served, or with discovery a failure.
func classify(c Call, err error, discovered bool) outcome {
	switch {
	case err == nil:
		return read
	case apierrors.IsForbidden(err), errors.Is(err, ErrNoClient):
		return refused
	case meta.IsNoMatchError(err):
		if discovered {
			return failed
		}
		return notServed
	case apierrors.IsNotFound(err):
		if c.Verb == Get && !unroutedPath(err) {
			return absent
		}
		if discovered {
			return failed
		}
		return notServed
	}
	return failed
}

// unroutedPath reports a 404 whose body was not an API Status: the server's
// router answered, not the resource's storage.
func unroutedPath(err error) bool {
	var s apierrors.APIStatus
	if !errors.As(err, &s) {
		return false
	}
	d := s.Status().Details
	if d == nil {
		return false
	}
	for _, c := range d.Causes {
		if c.Type == metav1.CauseTypeUnexpectedServerResponse {
			return true
		}
	}
	return false
}
