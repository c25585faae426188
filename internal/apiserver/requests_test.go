package apiserver_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// counting is a transport that counts the requests that reach the server.
type counting struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// counted is cfg with every request it makes counted in n.
func counted(cfg *rest.Config, n *atomic.Int64) *rest.Config {
	cp := rest.CopyConfig(cfg)
	cp.Wrap(func(rt http.RoundTripper) http.RoundTripper { return counting{next: rt, n: n} })
	return cp
}

// The bounds of the adapters hold against a real server, where every
// request is a round trip: one pool costs one request per object or kind
// it needs (11: 8 lists, of the 6 cluster-scoped kinds and its namespace's
// PVCs and DataVolumes, and 3 gets, of its golden's DataVolume, PVC and
// the volume the PVC is bound to), and a fleet of 1,000 pools in 100
// namespaces costs the same as 10 pools (9: one cluster-wide LIST per kind,
// and the golden's volume by name).
func TestRequestsOnARealAPIServer(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	readers := map[string]func(*rest.Config, state.Request) error{
		"client-go": func(cfg *rest.Config, req state.Request) error {
			_, err := clientGo(t, cfg, req)
			return err
		},
		"controller-runtime (API reader)": func(cfg *rest.Config, req state.Request) error {
			// The admin client's RESTMapper has done its discovery, as a
			// manager's does once per process: only the reads are counted.
			c, err := client.New(cfg, client.Options{Scheme: apiserver.Scheme(), Mapper: e.Client.RESTMapper()})
			require.NoError(t, err)
			_, err = controllerRuntime(c, req)
			return err
		},
	}
	requests := func(read func(*rest.Config, state.Request) error, req state.Request) int64 {
		var n atomic.Int64
		require.NoError(t, read(counted(e.Config, &n), req))
		return n.Load()
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) {
			one := requests(read, plan.Needs(fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)))
			assert.Equal(t, int64(11), one, "one pool: a request per object or kind it needs")
			ten := requests(read, plan.NeedsAll(fleet.BuiltinPools(10, 10)))
			thousand := requests(read, plan.NeedsAll(fleet.BuiltinPools(1000, 100)))
			assert.Equal(t, ten, thousand, "a fleet costs a constant number of requests")
			assert.Equal(t, int64(9), thousand, "one cluster-wide LIST per kind, and the golden's volume by name")
			t.Logf("requests: one pool %d, 10 pools %d, 1,000 pools in 100 namespaces %d", one, ten, thousand)
		})
	}
}
