package webhook_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain gives controller-runtime a logger, which it otherwise asks for
// on standard error in the middle of a long benchmark.
func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
