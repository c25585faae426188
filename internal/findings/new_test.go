package findings

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

func TestNewFindings(t *testing.T) {
	cases := map[string]struct {
		reason    string
		path      *field.Path
		wantField string
	}{
		"nested path": {"a values path reads as field.Path prints it", field.NewPath("osImage", "builtin", "version"), "osImage.builtin.version"},
		"index":       {"list indexes are kept", field.NewPath("images").Index(2).Child("storage"), "images[2].storage"},
		"map key":     {"map keys are kept", field.NewPath("nodeGroups").Key("md0").Child("roles"), "nodeGroups[md0].roles"},
		"no path":     {"a refusal about the whole subject has no field", nil, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := NewRefusal(guard.InvalidVersion, tc.path, "v1", "use %s", "v1.13.6")
			if r.Field != tc.wantField || r.Reason != guard.InvalidVersion || r.BadValue != "v1" || r.Subject != "" || r.Detail != "use v1.13.6" {
				t.Errorf("%s: got %+v", tc.reason, r)
			}
			w := NewWarning(guard.GoldenPending, tc.path, "wait for %s", "the import")
			if w.Field != tc.wantField || w.Reason != guard.GoldenPending || w.Subject != "" || w.Detail != "wait for the import" {
				t.Errorf("%s: got %+v", tc.reason, w)
			}
		})
	}
}
