package naming_test

import (
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// Seeds beyond these live under testdata/fuzz/<FuzzName>/.

// refusedAt checks that rs is nil or one refusal of reason at fld carrying
// the input as its bad value.
func refusedAt(t *testing.T, rs guard.Refusals, reason guard.Reason, fld *field.Path, in string) bool {
	t.Helper()
	if rs == nil {
		return false
	}
	if len(rs) != 1 || rs[0] == nil {
		t.Fatalf("%q: got %d refusals (%v), want one", in, len(rs), rs)
	}
	r := rs[0]
	if r.Reason != reason || r.Field != fld.String() || r.BadValue != in {
		t.Fatalf("%q: got %s at %q with %v, want %s at %q with the input", in, r.Reason, r.Field, r.BadValue, reason, fld)
	}
	return true
}

func FuzzValidateSchematicID(f *testing.F) {
	for _, s := range []string{defaultSchematicID, "", "CE4C", "ce4c-98", "ce4c\n"} {
		f.Add(s)
	}
	fld := field.NewPath("osImage", "builtin", "schematicID")
	f.Fuzz(func(t *testing.T, id string) {
		refused := refusedAt(t, naming.ValidateSchematicID(id, fld), guard.InvalidSchematicID, fld, id)
		lowerAlnum := id != "" && strings.Trim(id, "abcdefghijklmnopqrstuvwxyz0123456789") == ""
		if refused == lowerAlnum {
			t.Fatalf("%q: refused = %v, but it is lowercase letters and digits = %v", id, refused, lowerAlnum)
		}
	})
}

func FuzzValidateVersion(f *testing.F) {
	for _, s := range []string{"v1.13.6", "v0.0.0", "v01.2.3", "v1.2.3-rc.1", "v1.2", ""} {
		f.Add(s)
	}
	fld := field.NewPath("osImage", "builtin", "version")
	f.Fuzz(func(t *testing.T, v string) {
		refused := refusedAt(t, naming.ValidateVersion(v, fld), guard.InvalidVersion, fld, v)
		if refused == isRelease(v) {
			t.Fatalf("%q: refused = %v, but it is a release = %v", v, refused, isRelease(v))
		}
	})
}

// isRelease is the rule said another way: v and three dot-separated runs of
// decimal digits, none with a leading zero.
func isRelease(v string) bool {
	rest, ok := strings.CutPrefix(v, "v")
	parts := strings.Split(rest, ".")
	if !ok || len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" || len(p) > 1 && p[0] == '0' {
			return false
		}
	}
	return true
}

func FuzzValidateImageFactoryURL(f *testing.F) {
	for _, s := range []string{"https://factory.talos.dev", "https://f/", "https://f/?", "https://f#", "https://@f", "https://f:0", "https://f:65536", "ftp://f"} {
		f.Add(s)
	}
	fld := field.NewPath("talos", "imageFactoryURL")
	f.Fuzz(func(t *testing.T, raw string) {
		if refusedAt(t, naming.ValidateImageFactoryURL(raw, fld), guard.InvalidImageFactoryURL, fld, raw) {
			return
		}
		// Accepted: every promise of the rule holds.
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%q accepted but does not parse: %v", raw, err)
		}
		switch {
		case u.Scheme != "http" && u.Scheme != "https":
			t.Fatalf("%q accepted with scheme %q", raw, u.Scheme)
		case u.Hostname() == "":
			t.Fatalf("%q accepted without a host", raw)
		case u.User != nil, strings.ContainsAny(raw, "?#"):
			t.Fatalf("%q accepted with user info, a query or a fragment", raw)
		case strings.TrimSpace(raw) != raw:
			t.Fatalf("%q accepted with surrounding white space", raw)
		}
		// The image URL built from it keeps the factory's host.
		img, err := url.Parse(naming.ImageURL(raw, "ce4c", "v1.13.6"))
		if err != nil || img.Hostname() != u.Hostname() || !strings.HasSuffix(img.Path, "/image/ce4c/v1.13.6/"+naming.ImageFile) {
			t.Fatalf("%q: image URL %v does not keep the factory: %v", raw, img, err)
		}
	})
}

func FuzzGoldenName(f *testing.F) {
	f.Add(defaultSchematicID, "v1.13.6")
	f.Add(strings.Repeat("a", 233), "v1.13.6")
	f.Add("", "v1")
	idPath, versionPath := field.NewPath("images").Index(0).Child("schematicID"), field.NewPath("images").Index(0).Child("version")
	f.Fuzz(func(t *testing.T, id, version string) {
		name, rs := naming.GoldenName(id, version, idPath, versionPath)
		if rs != nil {
			if name != "" {
				t.Fatalf("(%q, %q): refused but named %q", id, version, name)
			}
			for _, r := range rs {
				if r == nil || r.Field != idPath.String() && r.Field != versionPath.String() {
					t.Fatalf("(%q, %q): refusal %v", id, version, r)
				}
			}
			if rs.Err() == nil {
				t.Fatalf("(%q, %q): refused with an empty list", id, version)
			}
			return
		}
		if len(name) > 253 {
			t.Fatalf("(%q, %q): emitted a name of %d characters", id, version, len(name))
		}
		gotID, gotVersion, ok := naming.ParseGoldenName(name)
		if !ok || gotID != id || gotVersion != version {
			t.Fatalf("%q parses as (%q, %q, %v), want (%q, %q)", name, gotID, gotVersion, ok, id, version)
		}
	})
}
