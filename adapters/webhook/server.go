package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// Limits bound what one client can make the webhook server hold: its
// time, its memory and its connections. A zero field takes its value in
// DefaultLimits.
type Limits struct {
	// MaxRequestBytes bounds a request's body: a larger one is answered
	// 413 Request Entity Too Large before it is read (by its
	// Content-Length) or as soon as it is read past the bound. At most
	// 7 MiB, controller-runtime's own bound: the API server sends at most
	// two objects of its 3 MiB each. A larger value is 7 MiB.
	MaxRequestBytes int64
	// HeaderTimeout bounds the reading of a request's headers, the TLS
	// handshake included.
	HeaderTimeout time.Duration
	// ReadTimeout bounds the reading of a whole request, headers and body:
	// a client that trickles its body is cut when it runs out.
	ReadTimeout time.Duration
	// MaxInFlight bounds the requests read and judged at once; the bodies
	// they carry are bounded too, to four of the largest. A request past
	// either bound is answered 429 Too Many Requests at once, which the API
	// server takes as a failed call (failurePolicy decides).
	MaxInFlight int
}

// DefaultLimits are the webhook server's limits unless told otherwise:
// the API server waits at most 30 seconds for an answer, and sends its
// requests at once.
func DefaultLimits() Limits {
	return Limits{MaxRequestBytes: 7 << 20, HeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, MaxInFlight: 32}
}

// crMaxRequestBytes is controller-runtime's bound on an admission
// request's body (pkg/webhook/admission/http.go, maxRequestSize).
const crMaxRequestBytes = 7 << 20

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxRequestBytes <= 0 {
		l.MaxRequestBytes = d.MaxRequestBytes
	}
	l.MaxRequestBytes = min(l.MaxRequestBytes, crMaxRequestBytes)
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = d.HeaderTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = d.ReadTimeout
	}
	if l.MaxInFlight <= 0 {
		l.MaxInFlight = d.MaxInFlight
	}
	return l
}

// NewServer is controller-runtime's webhook server, configured by o as
// crwebhook.NewServer is (host, port, certificates, which it reloads when
// they change, TLS options, client CA), that serves within limits l: a
// header and a read timeout, a bound on the requests in flight and on a
// request's body. Register and the mux are controller-runtime's, so its
// webhook metrics are served as before.
func NewServer(o crwebhook.Options, l Limits) crwebhook.Server {
	if o.WebhookMux == nil {
		o.WebhookMux = http.NewServeMux()
	}
	if o.Port == 0 {
		o.Port = crwebhook.DefaultPort
	}
	if o.CertDir == "" {
		o.CertDir = filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
	}
	if o.CertName == "" {
		o.CertName = "tls.crt"
	}
	if o.KeyName == "" {
		o.KeyName = "tls.key"
	}
	return &server{DefaultServer: crwebhook.NewServer(o).(*crwebhook.DefaultServer), opts: o, limits: l.withDefaults()}
}

// server serves controller-runtime's mux through limit.
type server struct {
	*crwebhook.DefaultServer
	opts    crwebhook.Options
	limits  Limits
	started atomic.Bool
}

var _ crwebhook.Server = (*server)(nil)

// Start serves as crwebhook.DefaultServer.Start does, on an http.Server
// with the limits' timeouts and the handler limit.
func (s *server) Start(ctx context.Context) error {
	log := logf.FromContext(ctx).WithName("webhook-server")
	if s.opts.Port < 0 {
		return nil
	}
	cfg := &tls.Config{NextProtos: []string{"h2"}}
	for _, op := range s.opts.TLSOpts {
		op(cfg)
	}
	if cfg.GetCertificate == nil {
		w, err := certwatcher.New(filepath.Join(s.opts.CertDir, s.opts.CertName), filepath.Join(s.opts.CertDir, s.opts.KeyName))
		if err != nil {
			return err
		}
		cfg.GetCertificate = w.GetCertificate
		go func() {
			if err := w.Start(ctx); err != nil {
				log.Error(err, "certificate watcher")
			}
		}()
	}
	if s.opts.ClientCAName != "" {
		pem, err := os.ReadFile(filepath.Join(s.opts.CertDir, s.opts.ClientCAName))
		if err != nil {
			return fmt.Errorf("read the client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return errors.New("the client CA holds no certificate")
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	l, err := tls.Listen("tcp", net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port)), cfg)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           limit(s.limits, s.opts.WebhookMux),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		MaxHeaderBytes:    64 << 10,
		ReadHeaderTimeout: s.limits.HeaderTimeout,
		ReadTimeout:       s.limits.ReadTimeout,
		// An answer is small: a client that does not read it is cut too.
		WriteTimeout: s.limits.ReadTimeout + 30*time.Second,
		IdleTimeout:  90 * time.Second,
	}
	closed := make(chan struct{})
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			log.Error(err, "shut the webhook server down")
		}
		close(closed)
	}()
	log.Info("serving webhooks", "host", s.opts.Host, "port", s.opts.Port, "maxRequestBytes", s.limits.MaxRequestBytes,
		"headerTimeout", s.limits.HeaderTimeout.String(), "readTimeout", s.limits.ReadTimeout.String(), "maxInFlight", s.limits.MaxInFlight)
	s.started.Store(true)
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-closed
	return nil
}

// StartedChecker is healthy once the server answers TLS.
func (s *server) StartedChecker() healthz.Checker {
	return func(*http.Request) error {
		if s.opts.Port < 0 {
			return nil
		}
		if !s.started.Load() {
			return errors.New("the webhook server has not started yet")
		}
		d := &net.Dialer{Timeout: 10 * time.Second}
		conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port)),
			// Only that it answers TLS, as controller-runtime checks.
			&tls.Config{InsecureSkipVerify: true})
		if err != nil {
			return fmt.Errorf("the webhook server is not reachable: %w", err)
		}
		return conn.Close()
	}
}

// limit serves next within l: a body over l.MaxRequestBytes is 413 before
// it is read whole, and past l.MaxInFlight requests, or bodies of four of
// the largest in all, a request is 429 before its body is read.
func limit(l Limits, next http.Handler) http.Handler {
	budget := &inFlight{free: 4 * l.MaxRequestBytes, count: l.MaxInFlight}
	// The least a request weighs: MaxInFlight of them fill the budget.
	least := budget.free / int64(l.MaxInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > l.MaxRequestBytes {
			refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
				"the request's body is %d bytes, over the webhook's bound of %d (worker-image webhook --max-request-bytes)", r.ContentLength, l.MaxRequestBytes))
			return
		}
		weight := r.ContentLength
		if weight < 0 {
			weight = l.MaxRequestBytes
		}
		weight = max(weight, least)
		if !budget.take(weight) {
			w.Header().Set("Retry-After", "1")
			refuse(w, http.StatusTooManyRequests, fmt.Sprintf(
				"the webhook judges %d requests at once (worker-image webhook --max-in-flight), and as many are in flight; retry", l.MaxInFlight))
			return
		}
		defer budget.give(weight)
		if r.ContentLength < 0 && r.Body != nil {
			// A body of unknown length is read here, to answer 413 when it
			// passes the bound.
			body, err := io.ReadAll(io.LimitReader(r.Body, l.MaxRequestBytes+1))
			if err != nil {
				refuse(w, http.StatusBadRequest, "the request's body could not be read: "+err.Error())
				return
			}
			if int64(len(body)) > l.MaxRequestBytes {
				refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
					"the request's body is over the webhook's bound of %d bytes (worker-image webhook --max-request-bytes)", l.MaxRequestBytes))
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		next.ServeHTTP(w, r)
	})
}

// inFlight is what the requests in flight hold: a count and a budget of
// body bytes.
type inFlight struct {
	mu    sync.Mutex
	free  int64
	count int
}

func (f *inFlight) take(weight int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.count == 0 || weight > f.free {
		return false
	}
	f.count--
	f.free -= weight
	return true
}

func (f *inFlight) give(weight int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.count++
	f.free += weight
}

// refuse answers a request the server does not pass on, with the status
// as an AdmissionReview's too: the API server reads neither as an answer,
// and fails the call.
func refuse(w http.ResponseWriter, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Response: &admissionv1.AdmissionResponse{Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: int32(code), Message: message, Reason: reasonOf(code),
		}},
	})
}

func reasonOf(code int) metav1.StatusReason {
	switch code {
	case http.StatusRequestEntityTooLarge:
		return metav1.StatusReasonRequestEntityTooLarge
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	}
	return metav1.StatusReasonBadRequest
}
