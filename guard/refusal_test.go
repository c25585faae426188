package guard_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

func TestNewRefusal(t *testing.T) {
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
			r := guard.NewRefusal(guard.InvalidVersion, tc.path, "v1", "use %s", "v1.13.6")
			if r.Field != tc.wantField || r.Reason != guard.InvalidVersion || r.BadValue != "v1" || r.Subject != "" {
				t.Errorf("%s: got %+v", tc.reason, r)
			}
		})
	}
}

func TestMessagesNameTheirSubjectAndReason(t *testing.T) {
	c := guard.Collector{Subject: "pool tenant-a/demo-md0"}
	c.Refuse(guard.DiskSmallerThanGolden, field.NewPath("diskSize"), "1Gi", "1Gi is below the golden's 6Gi; set diskSize to 6Gi or more")
	c.Warn(guard.GoldenPending, field.NewPath("osImage", "builtin"), "importing")
	msg := c.Err().Error()
	for _, part := range []string{"pool tenant-a/demo-md0", "diskSize", string(guard.DiskSmallerThanGolden)} {
		if !strings.Contains(msg, part) {
			t.Errorf("refusal message must name %q", part)
		}
	}
	w := c.Warnings()[0]
	if w.String() != w.Message() {
		t.Error("a warning's String is its Message")
	}
	for _, part := range []string{"pool tenant-a/demo-md0", "osImage.builtin", string(guard.GoldenPending)} {
		if !strings.Contains(w.Message(), part) {
			t.Errorf("warning message must name %q", part)
		}
	}
}

func TestRefusalIs(t *testing.T) {
	r := guard.NewRefusal(guard.StorageClassMismatch, field.NewPath("storageClass"), "a", "a is not b")
	cases := map[string]struct {
		reason string
		target error
		want   bool
	}{
		"reason":           {"a target with only a reason matches any field", &guard.Refusal{Reason: guard.StorageClassMismatch}, true},
		"reason and field": {"a target with reason and field matches that field", &guard.Refusal{Reason: guard.StorageClassMismatch, Field: "storageClass"}, true},
		"other field":      {"the same reason at another field does not match", &guard.Refusal{Reason: guard.StorageClassMismatch, Field: "diskSize"}, false},
		"other reason":     {"a neighbouring reason does not match", &guard.Refusal{Reason: guard.FrozenStorageClassConflict}, false},
		"empty target":     {"a target with no reason matches nothing", &guard.Refusal{}, false},
		"not a refusal":    {"a plain error never matches", errors.New("StorageClassMismatch"), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := errors.Is(r, tc.target); got != tc.want {
				t.Errorf("%s: errors.Is = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}
