package apiserver_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
)

// replanEnv names the number of pools TestReplan loads; unset, the test
// is skipped.
const replanEnv = "WORKER_IMAGE_REPLAN_POOLS"

// TestReplan loads N pools without disks (spread over 20 namespaces, every
// one a clone of the cluster's golden on replicated) and runs the
// controller over them as TestScale does (replan), reading the catalog
// from its release as the shipped controller does: the time to plan every
// pool, and from a change of their class's StorageProfile to every one
// planned again, with the mean time of one reconcile over the run (the
// first plans and the re-plans), as controller-runtime's metrics tell it.
// It asserts what replan asserts: every pool planned, another class's
// profile plans none again, their class's plans each once again.
// WORKER_IMAGE_SCALE_PROFILE names a file for the CPU profile of the
// re-plan.
//
//	WORKER_IMAGE_REPLAN_POOLS=10000 KUBEBUILDER_ASSETS=… go test ./internal/apiserver -run TestReplan -v -timeout 30m
func TestReplan(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(replanEnv))
	if n <= 0 {
		t.Skipf("set %s to the number of pools to load", replanEnv)
	}
	e := apiserver.Get(t)
	e.Cluster(t)
	began := time.Now()
	writePools(t, e, n)
	t.Logf("%d pools written in %v", n, time.Since(began).Round(time.Millisecond))

	count, seconds := reconciles(t)
	replan(t, e, n)
	c, s := reconciles(t)
	if c > count {
		t.Logf("controller: %.0f reconciles, %v each on average", c-count, time.Duration((s-seconds)/(c-count)*float64(time.Second)).Round(time.Microsecond))
	}
}

// reconciles are the count and the total seconds of the controller's
// reconciles so far, as controller-runtime's registry holds them.
func reconciles(t *testing.T) (count, seconds float64) {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_time_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "worker-image-controller" {
					count += float64(m.GetHistogram().GetSampleCount())
					seconds += m.GetHistogram().GetSampleSum()
				}
			}
		}
	}
	return count, seconds
}
