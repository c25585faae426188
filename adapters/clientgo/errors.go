package clientgo

import "github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"

// NotAPIServerError is an endpoint that does not answer discovery as a
// Kubernetes API server does: /api or /apis fail, or the core group v1 is
// not served (a wrong path in the kubeconfig's server URL, an ingress's
// default backend, a proxy that answers 404 to everything). Nothing it
// answers says anything of the cluster, so a caller stops and names the
// endpoint, rather than retry or plan with every kind unknown. Read
// returns it only with Discovery set; errors.As finds it, and it unwraps
// to the failed discovery request's error:
//
//	var nas *clientgo.NotAPIServerError
//	if errors.As(err, &nas) { /* check the kubeconfig's server */ }
type NotAPIServerError struct {
	err *clusterread.NotAPIServerError
}

// Error reads "not a Kubernetes API server: discovery of /api failed: …".
func (e *NotAPIServerError) Error() string { return e.err.Error() }

// Unwrap is the failed discovery request's error.
func (e *NotAPIServerError) Unwrap() error { return e.err.Err }

// public gives the error of a read its exported type: the reader's own
// failures are plain errors (retry), an endpoint that is not an API server
// a *NotAPIServerError.
func public(err error) error {
	if nas, ok := err.(*clusterread.NotAPIServerError); ok {
		return &NotAPIServerError{nas}
	}
	return err
}
