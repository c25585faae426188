package state_test

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// BenchmarkNewSnapshot indexes the large fleet's cluster: 1,000 goldens, 50
// classes and 100,000 PVCs that pools have already cloned.
func BenchmarkNewSnapshot(b *testing.B) {
	st := fleet.State(fleet.Large)
	b.ReportAllocs()
	for b.Loop() {
		state.NewSnapshot(st)
	}
}
