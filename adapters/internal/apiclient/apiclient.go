// Package apiclient makes the clients through which the webhook and the
// controller reach the API server past their caches: the reads no
// informer holds (a golden's volume, the objects a catalog release's
// valuesFrom names, the image catalog's release) and the Events.
package apiclient

import (
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Config is cfg for such a client: where cfg sets no client-side limit
// (no QPS, no RateLimiter), none, rather than client-go's 5 requests a
// second (burst 10), on which the admissions of a busy second would wait
// until their deadline and the Events of a change of thousands of
// verdicts for half an hour. The requests in flight are bounded by the
// callers in flight, and the API server's priority and fairness bounds
// them again. A limit cfg sets is kept; cfg is not changed.
func Config(cfg *rest.Config) *rest.Config {
	if cfg.QPS != 0 || cfg.RateLimiter != nil {
		return cfg
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1
	return cfg
}

// Reader is a client of mgr's (its HTTP client, scheme and REST mapper)
// over Config(mgr.GetConfig()): it reads from the API server, never from
// a cache.
func Reader(mgr manager.Manager) (client.Client, error) {
	return client.New(Config(mgr.GetConfig()), client.Options{HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
}
