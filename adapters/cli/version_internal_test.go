package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	rev := "c29960d64c654384171a2423a679ea8c21ade0f0"
	cases := map[string]struct {
		bi   *debug.BuildInfo
		want string
	}{
		"NoBuildInfo": {nil, "(devel)"},
		"WorkTree":    {&debug.BuildInfo{}, "(devel)"},
		"Commit": {&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}},
			"(devel) (commit " + rev + ")"},
		"Modified": {&debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}},
			"v0.3.0 (commit " + rev + ", modified)"},
		"Clean": {&debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}},
			"v0.3.0 (commit " + rev + ")"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := versionOf(tc.bi, tc.bi != nil); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
