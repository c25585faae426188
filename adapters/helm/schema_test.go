package helm_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// patterns collects every "pattern" in a schema by its JSON path.
func patterns(t *testing.T, schema map[string]any) map[string]string {
	t.Helper()
	data, err := json.Marshal(schema)
	if err != nil {
		t.Fatalf("the schema does not encode: %v", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(string, any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "pattern" {
					out[path] = c.(string)
					continue
				}
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range x {
				walk(path+"/*", c)
			}
		}
	}
	walk("", v)
	return out
}

func TestSchemaPatternsArePlanners(t *testing.T) {
	cases := map[string]struct {
		reason string
		schema map[string]any
		want   map[string]string
	}{
		"osImage": {
			reason: "osImage's flavor fields use the planner's own patterns",
			schema: helm.OSImageSchema(),
			want: map[string]string{
				"/properties/builtin/properties/schematicID/anyOf/*":     naming.SchematicIDPattern,
				"/properties/builtin/properties/version/anyOf/*":         naming.VersionPattern,
				"/properties/factory/properties/schematicID/anyOf/*":     naming.SchematicIDPattern,
				"/properties/factory/properties/version/anyOf/*":         naming.VersionPattern,
				"/properties/factory/properties/imageFactoryURL/anyOf/*": helm.ImageFactoryURLPattern,
			},
		},
		"images": {
			reason: "the catalog's entries use the planner's own patterns",
			schema: helm.ImagesSchema(),
			want: map[string]string{
				"/items/properties/schematicID":             naming.SchematicIDPattern,
				"/items/properties/version":                 naming.VersionPattern,
				"/items/properties/imageFactoryURL/anyOf/*": helm.ImageFactoryURLPattern,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := patterns(t, tc.schema)
			if len(got) != len(tc.want) {
				t.Errorf("%s: patterns %v, want %v", tc.reason, got, tc.want)
			}
			for path, want := range tc.want {
				if got[path] != want {
					t.Errorf("%s: %s is %q, want %q", tc.reason, path, got[path], want)
				}
			}
		})
	}
}

func TestSchemaAllowsNotSet(t *testing.T) {
	// "" means not set: the schema admits it beside the
	// pattern in osImage, where the planner falls back to talos.*.
	props := helm.OSImageSchema()["properties"].(map[string]any)["builtin"].(map[string]any)["properties"].(map[string]any)
	anyOf := props["version"].(map[string]any)["anyOf"].([]any)
	if anyOf[0].(map[string]any)["maxLength"] != 0 {
		t.Errorf(`osImage.builtin.version admits "": %v`, anyOf)
	}
	if !strings.Contains(mustJSON(t, helm.OSImageSchema()["not"]), `"builtin","factory"`) {
		t.Error("osImage refuses builtin and factory together")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var urlRE = regexp.MustCompile(helm.ImageFactoryURLPattern)

func TestImageFactoryURLPattern(t *testing.T) {
	cases := map[string]struct {
		reason string
		url    string
		valid  bool
	}{
		"https":       {"the default factory", "https://factory.talos.dev", true},
		"path":        {"a factory under a path, with a trailing slash", "http://mirror.example:8080/talos/", true},
		"upper":       {"a scheme is case-blind", "HTTPS://factory.talos.dev", true},
		"ipv6":        {"an IPv6 host", "https://[::1]:8443", true},
		"no scheme":   {"a host alone is not a URL", "factory.talos.dev", false},
		"ftp":         {"only http and https", "ftp://factory.talos.dev", false},
		"user":        {"no user info", "https://u@factory.talos.dev", false},
		"query":       {"no query", "https://factory.talos.dev/?x=1", false},
		"fragment":    {"no fragment", "https://factory.talos.dev/#x", false},
		"no host":     {"a host is required", "https:///image", false},
		"empty port":  {"a port without a host", "https://:80", false},
		"white space": {"no white space", "https://factory.talos.dev /", false},
		"empty":       {"empty is not a URL (optional fields admit it beside the pattern)", "", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := urlRE.MatchString(tc.url); got != tc.valid {
				t.Errorf("%s: pattern admits %q: %v, want %v", tc.reason, tc.url, got, tc.valid)
			}
			if got := naming.ValidateImageFactoryURL(tc.url, nil) == nil; got != tc.valid {
				t.Errorf("%s: planner admits %q: %v, want %v", tc.reason, tc.url, got, tc.valid)
			}
		})
	}
}

func TestImageFactoryURLPatternNeverStricter(t *testing.T) {
	// The schema is the chart's first check; it must never refuse what the
	// planner accepts, or a valid values file would not install.
	rapid.Check(t, func(t *rapid.T) {
		scheme := rapid.SampledFrom([]string{"http", "https", "HTTP", "hTTps", "ftp", ""}).Draw(t, "scheme")
		sep := rapid.SampledFrom([]string{"://", ":/", ":", "//"}).Draw(t, "sep")
		rest := rapid.StringOf(rapid.RuneFrom([]rune("ab1.-_~:/?#@[]% \t%2Ff"))).Draw(t, "rest")
		u := scheme + sep + rest
		if naming.ValidateImageFactoryURL(u, nil) == nil && !urlRE.MatchString(u) {
			t.Fatalf("the planner accepts %q and the schema refuses it", u)
		}
	})
}

func TestSchematicAndVersionPatternsAgree(t *testing.T) {
	// The schema's regexes decide as the planner's validators do.
	id, ver := regexp.MustCompile(naming.SchematicIDPattern), regexp.MustCompile(naming.VersionPattern)
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.RuneFrom([]rune("av0123.-Z\n"))).Draw(t, "s")
		if id.MatchString(s) != (naming.ValidateSchematicID(s, nil) == nil) {
			t.Fatalf("schematic ID %q: schema and planner disagree", s)
		}
		if ver.MatchString(s) != (naming.ValidateVersion(s, nil) == nil) {
			t.Fatalf("version %q: schema and planner disagree", s)
		}
	})
}
