package cli_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestErrorsNameTheirCause: every way a cluster cannot be read is status
// 1 with its own message: connection refused, DNS, TLS, 401, 403 (saying
// what to grant), 404, and an endpoint that is not a Kubernetes API
// server; none is mistaken for another.
func TestErrorsNameTheirCause(t *testing.T) {
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "https://" + addr
	}()
	status := func(code int, reason string) func(w http.ResponseWriter, r *http.Request) bool {
		return func(w http.ResponseWriter, r *http.Request) bool {
			writeStatus(w, code, reason, strings.ToLower(reason))
			return true
		}
	}
	server := func(answer func(w http.ResponseWriter, r *http.Request) bool) string {
		api := newFakeAPI(t, "")
		api.answerWith(answer)
		return api.URL
	}
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsServer.Close)
	html := func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>welcome</html>"))
		return true
	}
	cases := map[string]struct {
		url  string
		want string
	}{
		"refused":      {url: closed, want: "connection refused: nothing listens at the kubeconfig's server address"},
		"DNS":          {url: "https://nowhere.invalid:6443", want: `DNS: the host name "nowhere.invalid" does not resolve`},
		"TLS":          {url: tlsServer.URL, want: "TLS: the server's certificate is not signed by the kubeconfig's certificate authority"},
		"401":          {url: server(status(401, "Unauthorized")), want: "unauthorized (401): the API server does not accept the kubeconfig's credentials"},
		"403":          {url: server(status(403, "Forbidden")), want: "forbidden (403): the API server accepts the credentials, but RBAC denies the request: the credentials may not read discovery (get on the non-resource URLs /api and /apis, /api/* and /apis/*); bind them to the ClusterRole system:discovery"},
		"404":          {url: server(notFoundEverywhere), want: "failed: it answers 404 (not found), where every Kubernetes API server answers"},
		"not a server": {url: server(html), want: "not a Kubernetes API server: discovery of /api and /apis failed: it answers, but not with a Kubernetes API's discovery"},
	}
	seen := map[string]string{}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kc := kubeconfig(t, "tenant-demo", [2]string{"c", tc.url})
			r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "--request-timeout", "5s")
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want 1 saying %q\nstdout:\n%s\nstderr:\n%s", r.code, tc.want, r.stdout, r.stderr)
			}
			for other, want := range cases {
				if other != name && strings.Contains(r.stderr, want.want) {
					t.Errorf("the message of %s is also %s's: %s", name, other, r.stderr)
				}
			}
			seen[name] = r.stderr
		})
	}
}
