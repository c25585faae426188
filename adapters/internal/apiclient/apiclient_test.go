package apiclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// A config that sets no client-side limit gets none; one set is kept, and
// the config given is not changed.
func TestConfig(t *testing.T) {
	assert.Equal(t, float32(-1), Config(&rest.Config{}).QPS, "none set: none")
	set := &rest.Config{QPS: 7, Burst: 9}
	assert.Same(t, set, Config(set), "a QPS set is kept")
	limited := &rest.Config{RateLimiter: flowcontrol.NewFakeAlwaysRateLimiter()}
	assert.Same(t, limited, Config(limited), "a rate limiter set is kept")
	cfg := &rest.Config{}
	Config(cfg)
	assert.Zero(t, cfg.QPS, "the config given is not changed")
}
