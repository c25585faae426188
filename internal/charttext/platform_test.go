package charttext

import (
	"math"
	"testing"
)

// The ratios below were rendered through the chart (cozy-lib's
// resources.sanitize under Helm v4.1.1) and agree with it.
func TestEphemeralRequest(t *testing.T) {
	cases := map[string]struct {
		reason string
		ratio  float64
		want   string
		ok     bool
	}{
		"default":  {"cozy-lib's default ratio 40: 2Gi/40 truncated", 40, "53687091", true},
		"whole":    {"a whole quotient is kept whole", 32, "67108864", true},
		"three":    {"divf's 16 places, then truncated, not rounded", 3, "715827882", true},
		"fraction": {"a ratio under 1 raises the request above the limit", 0.3, "7158278826", true},
		"seven":    {"7.5 is exact in decimal", 7.5, "286331153", true},
		"negative": {"cozy-lib divides a negative ratio too", -4, "-536870912", true},
		"zero":     {"divf cannot divide by 0: the chart fails", 0, "", false},
		"infinite": {"decimal cannot hold an infinite ratio: the chart fails", math.Inf(1), "", false},
		"nan":      {"nor NaN", math.NaN(), "", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := EphemeralRequest(tc.ratio)
			if got != tc.want || ok != tc.ok {
				t.Errorf("%s: EphemeralRequest(%v) = %q, %t; want %q, %t", tc.reason, tc.ratio, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestConstraints(t *testing.T) {
	cases := map[string]struct {
		reason  string
		raw     string
		want    string
		wantErr bool
	}{
		"map": {
			reason: "fromYaml | toYaml sorts the keys and drops the final newline",
			raw:    "whenUnsatisfiable: DoNotSchedule\nmaxSkew: 2\ntopologyKey: kubernetes.io/hostname\n",
			want:   "maxSkew: 2\ntopologyKey: kubernetes.io/hostname\nwhenUnsatisfiable: DoNotSchedule",
		},
		"wrapped list": {
			reason: "a list under a key is written as toYaml writes lists",
			raw:    "topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n",
			want:   "topologySpreadConstraints:\n- maxSkew: 1\n  topologyKey: zone",
		},
		"empty map": {"an empty map is {}", "{}", "{}", false},
		"a list":    {reason: "fromYaml reads a map: a list is its error, which is not rendered here", raw: "- a\n- b\n", wantErr: true},
		"not YAML":  {reason: "nor is YAML that does not parse", raw: "a: [", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Constraints(tc.raw)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("%s: Constraints(%q) = %q, %v", tc.reason, tc.raw, got, err)
			}
		})
	}
}
