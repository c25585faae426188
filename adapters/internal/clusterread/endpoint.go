package clusterread

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Unreached says why a request never got an answer from an API server, in
// words a user acts on: "" when err is none of the causes below (the
// caller keeps its own words).
//
//   - connection refused: nothing listens at the address;
//   - DNS: the host name does not resolve;
//   - TLS: the handshake or the server's certificate failed;
//   - timed out: no answer within the request's timeout;
//   - unauthorized (401): the server does not accept the credentials;
//   - forbidden (403): it accepts them, but RBAC denies the request.
func Unreached(err error) string {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var header tls.RecordHeaderError
	var alert tls.AlertError
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case apierrors.IsUnauthorized(err):
		return "unauthorized (401): the API server does not accept the kubeconfig's credentials (an expired or revoked token or client certificate, or none); log in again or fix the kubeconfig's user"
	case apierrors.IsForbidden(err):
		return "forbidden (403): the API server accepts the credentials, but RBAC denies the request"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens at the kubeconfig's server address; is the API server up, and is the server URL (host and port) right?"
	case errors.As(err, &dns):
		return fmt.Sprintf("DNS: the host name %q does not resolve; check the kubeconfig's server URL", dns.Name)
	case errors.As(err, &unknownCA), errors.As(err, &verify):
		return "TLS: the server's certificate is not signed by the kubeconfig's certificate authority (certificate-authority-data); is it the right cluster?"
	case errors.As(err, &hostname):
		return "TLS: the server's certificate is not for the host of the kubeconfig's server URL; is it the right cluster?"
	case errors.As(err, &invalid):
		return "TLS: the server's certificate is not valid (expired, or not for serving)"
	case errors.As(err, &header):
		return "TLS: the server does not speak TLS (an http:// server behind an https:// URL?)"
	case errors.As(err, &alert):
		return "TLS: the server refused the handshake (a client certificate it does not accept?)"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out: no answer within the request timeout (--request-timeout raises it)"
	}
	return ""
}

// EndpointError is discovery that did not get an API server's answer: the
// connection, the TLS handshake or the credentials failed (Unreached says
// which). It is not a *NotAPIServerError: the endpoint may well be one.
type EndpointError struct {
	// What is the discovery request that failed ("/api and /apis").
	What string
	// Cause is Unreached's sentence.
	Cause string
	Err   error
}

func (e *EndpointError) Error() string {
	if apierrors.IsForbidden(e.Err) {
		return fmt.Sprintf("%s: the credentials may not read discovery (get on the non-resource URLs /api and /apis, /api/* and /apis/*); "+
			"bind them to the ClusterRole system:discovery (Kubernetes binds it to every authenticated user unless that binding was removed) (the server said: %v)", e.Cause, e.Err)
	}
	return fmt.Sprintf("%s (discovery of %s: %v)", e.Cause, e.What, e.Err)
}

func (e *EndpointError) Unwrap() error { return e.Err }

// discoveryFailed is the error of a failed discovery request: an
// *EndpointError when it never got an API server's answer, else a
// *NotAPIServerError (errNotFound for a 404).
func discoveryFailed(what string, err error) error {
	if cause := Unreached(err); cause != "" {
		return &EndpointError{What: what, Cause: cause, Err: err}
	}
	if apierrors.IsNotFound(err) {
		return &NotAPIServerError{What: what, Err: errNotFound}
	}
	return &NotAPIServerError{What: what, Err: fmt.Errorf("it answers, but not with a Kubernetes API's discovery (%w)", err)}
}
