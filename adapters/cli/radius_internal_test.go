package cli

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestRadiusWords: a radius's counts are its words without why they are
// lower bounds, and its unobserved kinds read back as a set (a name that
// is no kind counts as none).
func TestRadiusWords(t *testing.T) {
	cases := map[string]struct {
		r          catalog.Radius
		pointAt    string
		unobserved state.Kind
	}{
		"exact": {catalog.Radius{Pools: 2, Templates: 1}, "2 pools and 1 template point at it", 0},
		"none":  {catalog.Radius{}, "no pool or template points at it", 0},
		"lower bound": {catalog.Radius{Pools: 1, Templates: 1, Unobserved: []string{"VirtualMachine", "DataSource", "NoSuchKind"}},
			"at least 1 pool and 1 template point at it", state.VirtualMachine | state.DataSource},
	}
	for name, c := range cases {
		if got := pointAt(c.r); got != c.pointAt {
			t.Errorf("%s: pointAt %q, want %q", name, got, c.pointAt)
		}
		if got := unobservedKinds(c.r); got != c.unobserved {
			t.Errorf("%s: unobserved %v, want %v", name, got, c.unobserved)
		}
	}
}
