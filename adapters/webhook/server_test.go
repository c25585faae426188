package webhook_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
)

// limited runs the webhooks on webhook.NewServer with limits l, on
// loopback TLS, and returns its address ("127.0.0.1:port") and the pool
// that trusts its certificate.
func limited(t *testing.T, l webhook.Limits) (string, *x509.CertPool) {
	t.Helper()
	dir := t.TempDir()
	roots := selfSigned(t, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	srv := webhook.NewServer(crwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir}, l)
	validator(cluster()...).Register(srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); srv.StartedChecker()(nil) != nil; time.Sleep(10 * time.Millisecond) {
		require.False(t, time.Now().After(deadline), "the webhook server never started")
	}
	return fmt.Sprintf("127.0.0.1:%d", port), roots
}

// dial opens a TLS connection that speaks HTTP/1.1 to addr.
func dial(t *testing.T, addr string, roots *x509.CertPool) *tls.Conn {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server ends the connection (an
// answer, then the end, or the end alone) before the client gives up,
// after a minute: a liveness check, not a measure of time.
func closedByServer(c net.Conn) (answer string, closed bool) {
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(b), false
	}
	return string(b), true
}

func headers(path string, length int) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, length)
}

// A body over the bound is 413 before it is read: by its Content-Length,
// or, of unknown length, as soon as it passes it.
func TestServerBodyBound(t *testing.T) {
	addr, roots := limited(t, webhook.Limits{MaxRequestBytes: 64 << 10})
	c := dial(t, addr, roots)
	_, err := io.WriteString(c, headers(PoolsPath, 7<<20))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "answered with no byte of the body sent")
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "%s", body)
	assert.Contains(t, string(body), `"code":413`)
	assert.Contains(t, string(body), "--max-request-bytes")

	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	post := func(body io.Reader) int {
		resp, err := client.Post("https://"+addr+PoolsPath, "application/json", body)
		require.NoError(t, err)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	// A reader that is not a *bytes.Reader is sent chunked, of unknown length.
	chunked := func(n int) io.Reader { return io.MultiReader(strings.NewReader(strings.Repeat(" ", n))) }
	assert.Equal(t, http.StatusRequestEntityTooLarge, post(chunked(64<<10+1)), "one byte over, chunked")
	ordinary := probes(t)[1]
	assert.Equal(t, http.StatusOK, post(io.MultiReader(strings.NewReader(string(ordinary.body)))), "neighbour: a review of unknown length within the bound is judged")
}

// A client that trickles its headers or its body is cut by the timeouts.
func TestServerSlowClients(t *testing.T) {
	addr, roots := limited(t, webhook.Limits{HeaderTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond})

	t.Run("headers", func(t *testing.T) {
		c := dial(t, addr, roots)
		_, err := io.WriteString(c, "POST "+PoolsPath+" HTTP/1.1\r\nHost: webhook\r\n")
		require.NoError(t, err)
		_, closed := closedByServer(c)
		assert.True(t, closed, "a request whose headers never end is cut")
	})
	t.Run("body", func(t *testing.T) {
		c := dial(t, addr, roots)
		_, err := io.WriteString(c, headers(PoolsPath, 1000)+`{"apiVersion":`)
		require.NoError(t, err)
		answer, closed := closedByServer(c)
		assert.True(t, closed, "a body that never ends is cut")
		assert.NotContains(t, answer, `"allowed":true`)
	})
	t.Run("neighbour", func(t *testing.T) {
		c := dial(t, addr, roots)
		p := probes(t)[1]
		_, err := io.WriteString(c, headers(p.path, len(p.body))+string(p.body))
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		assert.NoError(t, p.check(resp.StatusCode, body), "a request sent at once is answered")
	})
}

// Past the requests in flight, or the bodies in flight, a request is 429
// at once; when they end, the next is served.
func TestServerInFlight(t *testing.T) {
	addr, roots := limited(t, webhook.Limits{MaxRequestBytes: 1 << 20, MaxInFlight: 2, ReadTimeout: time.Minute})
	p := probes(t)[1]
	send := func() (int, string) {
		c := dial(t, addr, roots)
		_, err := io.WriteString(c, headers(p.path, len(p.body))+string(p.body))
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// hold starts a request of length bytes that sends no body: it is in
	// flight until closed.
	hold := func(length int) *tls.Conn {
		c := dial(t, addr, roots)
		_, err := io.WriteString(c, headers(p.path, length))
		require.NoError(t, err)
		return c
	}
	inFlight := func(want int) {
		// The server takes a request into flight once it has read its
		// headers; wait until it has (a probe is refused 429 exactly then).
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if code, _ := send(); code == want {
				return
			}
			require.False(t, time.Now().After(deadline), "never %d", want)
		}
	}

	code, _ := send()
	require.Equal(t, http.StatusOK, code)
	a, b := hold(100), hold(100)
	inFlight(http.StatusTooManyRequests)
	code, body := send()
	assert.Equal(t, http.StatusTooManyRequests, code, "a third request in flight")
	assert.Contains(t, body, "--max-in-flight")
	a.Close()
	b.Close()
	inFlight(http.StatusOK)

	t.Run("bodies", func(t *testing.T) {
		// Four bodies of the largest fill the budget of bodies in flight,
		// however many requests may be.
		addr, roots := limited(t, webhook.Limits{MaxRequestBytes: 1 << 20, MaxInFlight: 32, ReadTimeout: time.Minute})
		hold := func() *tls.Conn {
			c := dial(t, addr, roots)
			_, err := io.WriteString(c, headers(p.path, 1<<20))
			require.NoError(t, err)
			return c
		}
		send := func() int {
			c := dial(t, addr, roots)
			_, err := io.WriteString(c, headers(p.path, len(p.body))+string(p.body))
			require.NoError(t, err)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}
		held := []*tls.Conn{hold(), hold(), hold()}
		// Each is taken into flight once its headers are read: three of
		// 1 MiB leave a quarter of the budget, room for small ones.
		time.Sleep(100 * time.Millisecond)
		assert.Equal(t, http.StatusOK, send(), "neighbour: three of the largest bodies leave room for a small one")
		held = append(held, hold())
		for deadline := time.Now().Add(time.Minute); send() != http.StatusTooManyRequests; time.Sleep(10 * time.Millisecond) {
			require.False(t, time.Now().After(deadline), "four of the largest bodies never filled the budget")
		}
		for _, c := range held {
			c.Close()
		}
	})
}
