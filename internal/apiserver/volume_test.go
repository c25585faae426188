package apiserver_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// recording is a transport that records the method and path of every
// request that reaches the server.
type recording struct {
	next http.RoundTripper
	mu   *sync.Mutex
	seen *[]string
}

func (r recording) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	*r.seen = append(*r.seen, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

// recorded is cfg with the requests it makes recorded in seen.
func recorded(cfg *rest.Config, seen *[]string) *rest.Config {
	cp := rest.CopyConfig(cfg)
	mu := &sync.Mutex{}
	cp.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recording{next: rt, mu: mu, seen: seen} })
	return cp
}

// The golden PVC's volume is read by the name its claim gives, once per
// golden however many pools clone it, through either live adapter: CDI
// clones with that volume's CSI driver.
func TestGoldenVolumeByName(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	volume := "pv-" + fixtures.Golden
	readers := map[string]func(*rest.Config, state.Request) (*state.State, error){
		"client-go": func(cfg *rest.Config, req state.Request) (*state.State, error) {
			return clientGo(t, cfg, req)
		},
		"controller-runtime (API reader)": func(cfg *rest.Config, req state.Request) (*state.State, error) {
			c, err := client.New(cfg, client.Options{Scheme: apiserver.Scheme(), Mapper: e.Client.RESTMapper()})
			require.NoError(t, err)
			return controllerRuntime(c, req)
		},
	}
	fleets := map[string][]plan.Pool{
		"one pool":                      {fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)},
		"1,000 pools in 100 namespaces": fleet.BuiltinPools(1000, 100),
	}
	for name, read := range readers {
		for size, pools := range fleets {
			t.Run(name+", "+size, func(t *testing.T) {
				var seen []string
				st, err := read(recorded(e.Config, &seen), plan.NeedsAll(pools))
				require.NoError(t, err)
				var volumeReads []string
				for _, r := range seen {
					if strings.Contains(r, "/persistentvolumes") {
						volumeReads = append(volumeReads, r)
					}
				}
				assert.Equal(t, []string{"GET /api/v1/persistentvolumes/" + volume}, volumeReads, "one get by name, no list")
				assert.False(t, st.Observed.Has(state.PersistentVolume), "a volume read by name observes no more than itself")
				snap := state.NewSnapshot(st)
				pv := stateindex.Of(snap).PersistentVolume(volume)
				require.NotNil(t, pv, "the golden's volume is in the State")
				require.NotNil(t, pv.Spec.CSI)
				assert.Equal(t, fixtures.ReplicatedProvisioner, pv.Spec.CSI.Driver)
			})
		}
	}
	t.Run("controller-runtime (cache)", func(t *testing.T) {
		st, err := controllerRuntime(e.Cache(t, e.Config), plan.Needs(fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)))
		require.NoError(t, err)
		assert.Contains(t, st.Objects, state.Ref{Kind: state.PersistentVolume, Name: volume})
		assert.NotNil(t, stateindex.Of(state.NewSnapshot(st)).PersistentVolume(volume), "a cache answers the get by name too")
	})
}
