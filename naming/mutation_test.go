package naming_test

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// The tests of this file pin rules that mutation testing (gremlins, see
// internal/invariants/README.md) found no test noticing when broken.

// TestSameURLBracketsIPv6Hosts: an IPv6 host keeps its brackets in the
// canonical form, so that a port after it stays a port: "[::1]:8443" (host
// ::1, port 8443) and "[::1:8443]" (host ::1:8443) are two hosts. Only a
// scheme's default port is dropped; any other is kept.
func TestSameURLBracketsIPv6Hosts(t *testing.T) {
	cases := map[string]struct {
		reason string
		a, b   string
		same   bool
	}{
		"port after an IPv6 host": {"a port is not part of the host", "https://[::1]:8443/x", "https://[::1:8443]/x", false},
		"default port dropped":    {"neighbour: 443 is https's default, on an IPv6 host too", "https://[::1]:443/x", "https://[::1]/x", true},
		"other port kept":         {"8443 is not https's default", "https://[::1]:8443/x", "https://[::1]/x", false},
		"two other ports":         {"the port is part of the address", "https://f.example:8443/x", "https://f.example:9443/x", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := naming.SameURL(tc.a, tc.b); got != tc.same {
				t.Errorf("SameURL(%q, %q) = %v, want %v: %s", tc.a, tc.b, got, tc.same, tc.reason)
			}
		})
	}
}
