package naming_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

const defaultSchematicID = "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515"

// validation is one case of a validator: the input and whether it is refused.
type validation struct {
	reason  string
	in      string
	refused bool
}

// checkValidator runs a validator's table and compares reason, field and bad
// value of every refusal.
func checkValidator(t *testing.T, validate func(string, *field.Path) guard.Refusals, reason guard.Reason, cases map[string]validation) {
	t.Helper()
	fld := field.NewPath("osImage", "builtin", "x")
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rs := validate(tc.in, fld)
			if !tc.refused {
				if rs != nil {
					t.Fatalf("%s: %q refused (a valid value returns nil): %v", tc.reason, tc.in, rs)
				}
				return
			}
			if len(rs) != 1 {
				t.Fatalf("%s: %q: want one refusal, got %v", tc.reason, tc.in, rs)
			}
			if !errors.Is(rs.Err(), reason) {
				t.Errorf("%s: %q: errors.Is(err, %s) does not find the refusal", tc.reason, tc.in, reason)
			}
			if r := rs[0]; r.Reason != reason || r.Field != fld.String() || r.BadValue != tc.in {
				t.Errorf("%s: %q: want %s at %s with the bad value, got %s at %s with %v",
					tc.reason, tc.in, reason, fld, r.Reason, r.Field, r.BadValue)
			}
		})
	}
}

func TestValidateSchematicID(t *testing.T) {
	checkValidator(t, naming.ValidateSchematicID, guard.InvalidSchematicID, map[string]validation{
		"default":            {"the chart's default schematic passes", defaultSchematicID, false},
		"short":              {"any length of lowercase hex passes", "ce4c98", false},
		"one character":      {"a single character is one or more", "0", false},
		"letters beyond hex": {"the rule is [a-z0-9], not hex", "xyz", false},
		"empty":              {"an empty ID is refused (after defaulting, empty means the values were never set)", "", true},
		"upper case":         {"upper case is refused: the Image Factory prints lower case", "CE4C98", true},
		"one upper":          {"one upper-case letter among lower case is refused", "ce4C98", true},
		"hyphen":             {"a hyphen would make the golden name ambiguous", "ce4c-98", true},
		"underscore":         {"an underscore is not a letter or a digit", "ce4c_98", true},
		"dot":                {"a dot is not a letter or a digit", "ce4c.98", true},
		"leading space":      {"white space is refused, not trimmed", " ce4c98", true},
		"trailing newline":   {"$ does not match before a final newline", "ce4c98\n", true},
		"non-ASCII":          {"a non-ASCII letter is refused", "ce4cé98", true},
	})
}

func TestValidateVersion(t *testing.T) {
	checkValidator(t, naming.ValidateVersion, guard.InvalidVersion, map[string]validation{
		"default":            {"the chart's default version passes", "v1.13.6", false},
		"zeros":              {"v0.0.0 is a release: a lone zero is not a leading zero", "v0.0.0", false},
		"multi-digit":        {"multi-digit parts pass", "v10.20.30", false},
		"zero major":         {"a zero major with non-zero minor passes", "v0.1.0", false},
		"leading zero major": {"a leading zero is refused", "v01.2.3", true},
		"leading zero minor": {"a leading zero in the minor is refused", "v1.02.3", true},
		"leading zero patch": {"a leading zero in the patch is refused", "v1.2.03", true},
		"double zero":        {"00 is a leading zero", "v1.00.3", true},
		"pre-release":        {"a pre-release suffix is refused", "v1.2.3-rc.1", true},
		"build metadata":     {"build metadata is a suffix too", "v1.2.3+build", true},
		"trailing hyphen":    {"a bare hyphen is a suffix", "v1.2.3-", true},
		"two parts":          {"MAJOR.MINOR alone is refused", "v1.2", true},
		"one part":           {"MAJOR alone is refused", "v1", true},
		"four parts":         {"a fourth part is refused", "v1.2.3.4", true},
		"no v":               {"the leading v is required", "1.2.3", true},
		"upper V":            {"the v is lower case", "V1.2.3", true},
		"empty part":         {"an empty part is refused", "v1..3", true},
		"empty":              {"empty is refused", "", true},
		"leading space":      {"white space is refused, not trimmed", " v1.2.3", true},
		"trailing newline":   {"$ does not match before a final newline", "v1.2.3\n", true},
		"latest":             {"a tag that is not a release is refused", "latest", true},
	})
}

func TestValidateImageFactoryURL(t *testing.T) {
	checkValidator(t, naming.ValidateImageFactoryURL, guard.InvalidImageFactoryURL, map[string]validation{
		"default":               {"the chart's default factory passes", "https://factory.talos.dev", false},
		"http":                  {"plain http is allowed (an in-cluster mirror)", "http://factory.local", false},
		"trailing slash":        {"a trailing slash is fine: ImageURL trims one", "https://factory.talos.dev/", false},
		"path":                  {"a factory behind a path prefix passes", "https://mirror.example/talos/", false},
		"scheme case":           {"URL schemes are case-blind", "HTTPS://factory.talos.dev", false},
		"port":                  {"an explicit port passes", "https://factory.local:8443", false},
		"lowest port":           {"1 is the lowest port", "https://f:1", false},
		"highest port":          {"65535 is the highest port", "https://f:65535", false},
		"empty port":            {"RFC 3986 allows an empty port: the scheme's default is dialled", "https://f:", false},
		"IPv6":                  {"an IPv6 literal with a port passes", "https://[fd00::1]:8443/", false},
		"port zero":             {"port 0 is not a port one can dial", "https://f:0", true},
		"port too high":         {"65536 is one above the highest port", "https://f:65536", true},
		"port overflows":        {"a port beyond int is refused, not wrapped", "https://f:99999999999999999999", true},
		"port sign":             {"a signed port does not parse", "https://f:+1", true},
		"empty":                 {"empty is refused (after defaulting)", "", true},
		"no scheme":             {"a host alone is not absolute", "factory.talos.dev", true},
		"other scheme":          {"only http and https", "ftp://factory.talos.dev", true},
		"opaque":                {"https:host is opaque, not hierarchical", "https:factory.talos.dev", true},
		"no host":               {"three slashes leave no host", "https:///image", true},
		"port only":             {"a port without a host has no host", "https://:443", true},
		"empty query":           {"a bare ? is a query, even empty", "https://f/?", true},
		"empty query, no slash": {"a bare ? right after the host too", "https://f?", true},
		"query":                 {"a query would be cut off by the appended /image path", "https://f?x=1", true},
		"empty fragment":        {"a bare # is a fragment, even empty", "https://f#", true},
		"fragment":              {"a fragment is refused", "https://f/#top", true},
		"empty user info":       {"an @ before the host is user info, even empty", "https://@f", true},
		"user info":             {"credentials do not belong in values", "https://user:pass@f", true},
		"leading space":         {"white space is refused, not trimmed", " https://f", true},
		"inner space":           {"a space in the path is refused", "https://f/a b", true},
		"trailing newline":      {"a trailing newline is refused", "https://f\n", true},
		"bad escape":            {"an invalid percent escape does not parse", "https://f/%zz", true},
	})
}

func TestGoldenName(t *testing.T) {
	// The golden name is "talos-worker-" + ID + "-" + version: with v1.13.6
	// an ID of 232 characters makes exactly 253, the longest object name.
	longest := strings.Repeat("a", 253-len("talos-worker-")-len("-v1.13.6"))
	idPath, versionPath := field.NewPath("images").Index(0).Child("schematicID"), field.NewPath("images").Index(0).Child("version")
	cases := map[string]struct {
		reason      string
		id, version string
		want        string
		refusals    []fixtures.Finding
	}{
		"default": {
			reason: "the chart's default flavor",
			id:     defaultSchematicID, version: "v1.13.6",
			want: "talos-worker-" + defaultSchematicID + "-v1.13.6",
		},
		"253": {
			reason: "a name of exactly 253 characters is a valid object name",
			id:     longest, version: "v1.13.6",
			want: "talos-worker-" + longest + "-v1.13.6",
		},
		"254": {
			reason: "one character more is refused rather than emitted",
			id:     longest + "a", version: "v1.13.6",
			refusals: []fixtures.Finding{{Reason: guard.InvalidSchematicID, Field: idPath.String()}},
		},
		"bad ID": {
			reason: "an invalid ID is refused at its field",
			id:     "CE4C", version: "v1.13.6",
			refusals: []fixtures.Finding{{Reason: guard.InvalidSchematicID, Field: idPath.String()}},
		},
		"bad version": {
			reason: "an invalid version is refused at its field",
			id:     "ce4c", version: "v1.13",
			refusals: []fixtures.Finding{{Reason: guard.InvalidVersion, Field: versionPath.String()}},
		},
		"both bad": {
			reason: "both parts are checked: every refusal is reported, not only the first",
			id:     "", version: "1.13.6",
			refusals: []fixtures.Finding{{Reason: guard.InvalidSchematicID, Field: idPath.String()}, {Reason: guard.InvalidVersion, Field: versionPath.String()}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, rs := naming.GoldenName(tc.id, tc.version, idPath, versionPath)
			gotRefusals := fixtures.Of(rs)
			if got != tc.want || len(gotRefusals) != len(tc.refusals) {
				t.Fatalf("%s: got %q, %v; want %q, %v", tc.reason, got, gotRefusals, tc.want, tc.refusals)
			}
			for i := range gotRefusals {
				if gotRefusals[i] != tc.refusals[i] {
					t.Errorf("%s: refusal %d: got %v, want %v", tc.reason, i, gotRefusals[i], tc.refusals[i])
				}
			}
			if (rs.Err() == nil) != (tc.refusals == nil) {
				t.Errorf("%s: error %v", tc.reason, rs.Err())
			}
		})
	}
}

func TestParseGoldenName(t *testing.T) {
	longest := strings.Repeat("a", 253-len("talos-worker-")-len("-v1.13.6"))
	cases := map[string]struct {
		reason      string
		name        string
		id, version string
	}{
		"default":       {"the default flavor's golden", "talos-worker-" + defaultSchematicID + "-v1.13.6", defaultSchematicID, "v1.13.6"},
		"zeros":         {"v0.0.0 round-trips", "talos-worker-0-v0.0.0", "0", "v0.0.0"},
		"253":           {"the longest name GoldenName derives", "talos-worker-" + longest + "-v1.13.6", longest, "v1.13.6"},
		"254":           {"a name GoldenName would refuse as too long is not a golden's", "talos-worker-" + longest + "a-v1.13.6", "", ""},
		"no prefix":     {"another DataVolume in cozy-public", "worker-ce4c-v1.13.6", "", ""},
		"prefix only":   {"the prefix alone", "talos-worker-", "", ""},
		"no version":    {"a name without a version", "talos-worker-ce4c", "", ""},
		"empty ID":      {"an empty schematic ID", "talos-worker--v1.13.6", "", ""},
		"pre-release":   {"a version with a suffix splits at its hyphen and is refused", "talos-worker-ce4c-v1.13.6-rc.1", "", ""},
		"short version": {"a version that is not a release", "talos-worker-ce4c-v1.13", "", ""},
		"hyphen in ID":  {"a hyphenated ID is not one GoldenName accepts", "talos-worker-ce-4c-v1.13.6", "", ""},
		"upper case":    {"upper case is not a golden's name", "talos-worker-CE4C-v1.13.6", "", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			id, version, ok := naming.ParseGoldenName(tc.name)
			if wantOK := tc.id != ""; ok != wantOK || id != tc.id || version != tc.version {
				t.Fatalf("%s: got (%q, %q, %v), want (%q, %q, %v)", tc.reason, id, version, ok, tc.id, tc.version, wantOK)
			}
			if !ok {
				return
			}
			back, err := naming.GoldenName(id, version, nil, nil)
			if err != nil || back != tc.name {
				t.Errorf("%s: GoldenName of the parts gives %q, %v; want the name back", tc.reason, back, err)
			}
		})
	}
}

func TestImageURL(t *testing.T) {
	const tail = "/image/ce4c/v1.13.6/openstack-amd64.raw.xz"
	cases := map[string]struct {
		reason  string
		factory string
		want    string
	}{
		"default":        {"the chart's URL for its defaults", "https://factory.talos.dev", "https://factory.talos.dev" + tail},
		"trailing slash": {"one trailing slash is trimmed, as the chart's trimSuffix does", "https://factory.talos.dev/", "https://factory.talos.dev" + tail},
		"two slashes":    {"exactly one is trimmed, never more: the pre-feature text must not change", "https://factory.talos.dev//", "https://factory.talos.dev/" + tail},
		"path prefix":    {"a path prefix is kept", "https://mirror.example/talos/", "https://mirror.example/talos" + tail},
		"port":           {"a port is kept as written", "http://mirror:8080", "http://mirror:8080" + tail},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := naming.ImageURL(tc.factory, "ce4c", "v1.13.6"); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestInstallerImage(t *testing.T) {
	cases := map[string]struct {
		reason     string
		repository string
		want       string
	}{
		"default": {"the chart's default installer repository", "factory.talos.dev/installer", "factory.talos.dev/installer/" + defaultSchematicID + ":v1.13.6"},
		"mirror":  {"a registry with a port keeps it", "registry.local:5000/talos/installer", "registry.local:5000/talos/installer/" + defaultSchematicID + ":v1.13.6"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := naming.InstallerImage(tc.repository, defaultSchematicID, "v1.13.6"); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestSameURL(t *testing.T) {
	const u = "https://factory.talos.dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz"
	cases := map[string]struct {
		reason string
		a, b   string
		want   bool
	}{
		"identical":       {"the same text", u, u, true},
		"host case":       {"host names are case-blind", u, "https://Factory.Talos.Dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz", true},
		"scheme case":     {"schemes are case-blind", u, "HTTPS://factory.talos.dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz", true},
		"default port":    {"https's :443 is the default", u, "https://factory.talos.dev:443/image/ce4c/v1.13.6/openstack-amd64.raw.xz", true},
		"http port":       {"http's :80 is the default", "http://m/x", "http://m:80/x", true},
		"IPv6 port":       {"an IPv6 host with its default port", "https://[fd00::1]/x", "https://[FD00::1]:443/x", true},
		"other port":      {"a port that is not the default differs", u, "https://factory.talos.dev:8443/image/ce4c/v1.13.6/openstack-amd64.raw.xz", false},
		"cross default":   {"http's default port on https is not a default", "https://m/x", "https://m:80/x", false},
		"scheme":          {"http and https are different sources", u, "http://factory.talos.dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz", false},
		"path case":       {"paths are case-sensitive", u, "https://factory.talos.dev/image/CE4C/v1.13.6/openstack-amd64.raw.xz", false},
		"version":         {"another version is another image", u, "https://factory.talos.dev/image/ce4c/v1.13.7/openstack-amd64.raw.xz", false},
		"query":           {"a query may select another image", u, u + "?arch=arm64", false},
		"fragment":        {"a fragment is not dropped", u, u + "#x", false},
		"user info":       {"credentials are part of the source", u, "https://u@factory.talos.dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz", false},
		"unparsable":      {"an unparsable URL equals only itself", "https://f/%zz", "https://f/%ZZ", false},
		"unparsable same": {"an unparsable URL equals itself", "https://f/%zz", "https://f/%zz", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := naming.SameURL(tc.a, tc.b); got != tc.want {
				t.Errorf("%s: SameURL(%q, %q) = %v, want %v", tc.reason, tc.a, tc.b, got, tc.want)
			}
			if got := naming.SameURL(tc.b, tc.a); got != tc.want {
				t.Errorf("%s: SameURL(%q, %q) = %v, want %v (it must be symmetric)", tc.reason, tc.b, tc.a, got, tc.want)
			}
		})
	}
}

func TestPoolCAPIName(t *testing.T) {
	if got := naming.PoolCAPIName("demo-md0"); got != "kubernetes-demo-md0" {
		t.Errorf("a KubernetesNodes demo-md0 is the CAPI pool kubernetes-demo-md0, got %q", got)
	}
}
