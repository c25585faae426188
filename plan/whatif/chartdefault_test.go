package whatif

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// A new chart default applies as Helm coalesces a chart's values.yaml with
// a release's values: only where the release does not set the key.
func TestChartDefaultApplies(t *testing.T) {
	cases := map[string]struct {
		reason string
		key    string
		value  any
		spec   any
		want   any
	}{
		"absent": {
			reason: "a pool that sets no talos takes the new version",
			key:    "talos.version", value: "v1.13.7",
			spec: map[string]any{"cluster": "demo"},
			want: map[string]any{"cluster": "demo", "talos": map[string]any{"version": "v1.13.7"}},
		},
		"sibling set": {
			reason: "a talos map without version takes it beside its own keys",
			key:    "talos.version", value: "v1.13.7",
			spec: map[string]any{"talos": map[string]any{"schematicID": "abc"}},
			want: map[string]any{"talos": map[string]any{"schematicID": "abc", "version": "v1.13.7"}},
		},
		"set": {
			reason: "a pool that sets the key keeps its value",
			key:    "talos.version", value: "v1.13.7",
			spec: map[string]any{"talos": map[string]any{"version": "v1.12.0"}},
			want: map[string]any{"talos": map[string]any{"version": "v1.12.0"}},
		},
		"set to null": {
			reason: "null is set: Helm deletes the default with it",
			key:    "storageClass", value: "fast",
			spec: map[string]any{"storageClass": nil},
			want: map[string]any{"storageClass": nil},
		},
		"map set to null": {
			reason: "a null map deletes every default in it",
			key:    "talos.version", value: "v1.13.7",
			spec: map[string]any{"talos": nil},
			want: map[string]any{"talos": nil},
		},
		"scalar where a map belongs": {
			reason: "Helm keeps a scalar where the chart has a map",
			key:    "talos.version", value: "v1.13.7",
			spec: map[string]any{"talos": "v1.12.0"},
			want: map[string]any{"talos": "v1.12.0"},
		},
		"empty string": {
			reason: `"" is set: only the template's default reads it as unset`,
			key:    "diskSize", value: "30Gi",
			spec: map[string]any{"diskSize": ""},
			want: map[string]any{"diskSize": ""},
		},
		"no spec": {
			reason: "a pool without a spec takes every default",
			key:    "osImage.builtin.version", value: "v1.13.7",
			spec: nil,
			want: map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": "v1.13.7"}}},
		},
		"free map": {
			reason: `registryMirrors takes any host; "\." is a dot inside a key`,
			key:    `talos.registryMirrors.docker\.io.endpoints`, value: []any{"http://mirror"},
			spec: map[string]any{},
			want: map[string]any{"talos": map[string]any{"registryMirrors": map[string]any{"docker.io": map[string]any{"endpoints": []any{"http://mirror"}}}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := ChartDefault{Key: tc.key, Value: tc.value}
			if r := d.check(); r != nil {
				t.Fatalf("%s: %v", tc.reason, r)
			}
			before := deepCopy(tc.spec)
			got := d.apply(tc.spec)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %#v, want %#v", tc.reason, got, tc.want)
			}
			if !reflect.DeepEqual(tc.spec, before) {
				t.Errorf("%s: the pool's values changed: %#v", tc.reason, tc.spec)
			}
		})
	}
}

// A default the chart could not hold is refused, at its key, naming the
// nearest key the chart defines.
func TestChartDefaultRefused(t *testing.T) {
	cases := map[string]struct {
		reason   string
		defaults []ChartDefault
		fields   []string
	}{
		"misspelt":       {"talos.verison is no key of the chart", []ChartDefault{{Key: "talos.verison"}}, []string{"talos.verison"}},
		"case":           {"osimage is not osImage", []ChartDefault{{Key: "osimage.builtin"}}, []string{"osimage"}},
		"below scalar":   {"diskSize holds no keys", []ChartDefault{{Key: "diskSize.x"}}, []string{"diskSize.x"}},
		"empty part":     {"a key of empty parts", []ChartDefault{{Key: "talos..version"}}, []string{"talos"}},
		"twice":          {"one key given twice", []ChartDefault{{Key: "talos.version", Value: "a"}, {Key: "talos.version", Value: "b"}}, []string{"talos.version"}},
		"all together":   {"every default's refusal at once", []ChartDefault{{Key: "nope"}, {Key: "talos.nope"}}, []string{"nope", "talos.nope"}},
		"not an integer": {"minReplicas takes an integer", []ChartDefault{{Key: "minReplicas", Value: "abc"}}, []string{"minReplicas"}},
		"a fraction":     {"maxReplicas takes a whole number", []ChartDefault{{Key: "maxReplicas", Value: 1.5}}, []string{"maxReplicas"}},
		"a number":       {"storageClass takes a string; 5 fails the schema", []ChartDefault{{Key: "storageClass", Value: 5.0}}, []string{"storageClass"}},
		"required null":  {"a null talos.version deletes what the schema requires", []ChartDefault{{Key: "talos.version"}}, []string{"talos.version"}},
		"a list":         {"diskSize takes a quantity", []ChartDefault{{Key: "diskSize", Value: []any{"20Gi"}}}, []string{"diskSize"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Diff(Input{}, Change{Defaults: tc.defaults})
			var got []string
			rs := fixtures.Refusals(err)
			if len(rs) == 0 {
				t.Fatalf("%s: error %v is not refusals", tc.reason, err)
			}
			for _, r := range rs {
				if r.Reason != guard.InvalidValue {
					t.Errorf("%s: reason %s", tc.reason, r.Reason)
				}
				got = append(got, r.Field)
			}
			if !reflect.DeepEqual(got, tc.fields) {
				t.Errorf("%s: fields %v, want %v", tc.reason, got, tc.fields)
			}
		})
	}
	if r := (ChartDefault{Key: "talos.verison"}).check(); r == nil || !strings.Contains(r.Detail, `"version"`) {
		t.Errorf("the refusal names the nearest key, version: %v", r)
	}
}

// deepCopy copies the maps and lists of values.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// Just clear of the type checks: what the values schema takes passes.
func TestChartDefaultTypesTaken(t *testing.T) {
	for _, d := range []ChartDefault{
		{Key: "minReplicas", Value: -1.0}, {Key: "maxReplicas", Value: 10.0}, {Key: "version", Value: "v1.34"},
		{Key: "storageClass", Value: ""}, {Key: "storageClass", Value: nil}, {Key: "diskSize", Value: 21474836480.0},
		{Key: "diskSize", Value: "30Gi"}, {Key: "logSerialConsole", Value: true}, {Key: "roles", Value: []any{"ingress-nginx"}},
		{Key: "talos.registryMirrors", Value: map[string]any{}},
	} {
		if r := d.check(); r != nil {
			t.Errorf("%s: %v", d, r)
		}
	}
}
