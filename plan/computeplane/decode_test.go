package computeplane

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

func TestDecodeValues(t *testing.T) {
	cases := map[string]struct {
		reason  string
		yaml    string
		want    map[string]any
		wantErr bool
	}{
		"Empty": {
			reason: "An empty file sets nothing.",
			yaml:   "",
			want:   map[string]any{},
		},
		"Null": {
			reason: "A null document sets nothing.",
			yaml:   "null\n",
			want:   map[string]any{},
		},
		"NumbersAsWritten": {
			reason: "Numbers stay as written, so a release gets 3, not 3.0, and large sizes keep every digit.",
			yaml:   "nodeGroups: {md0: {maxReplicas: 3, diskSize: 21474836481}}\n",
			want: map[string]any{"nodeGroups": map[string]any{"md0": map[string]any{
				"maxReplicas": json.Number("3"), "diskSize": json.Number("21474836481"),
			}}},
		},
		"JSON": {
			reason: "JSON is YAML.",
			yaml:   `{"nodeGroups": {"md0": {"roles": ["ingress-nginx"]}}}`,
			want:   map[string]any{"nodeGroups": map[string]any{"md0": map[string]any{"roles": []any{"ingress-nginx"}}}},
		},
		"List": {
			reason:  "A list is not values: unusable input, not a refusal.",
			yaml:    "- nodeGroups: {}\n",
			wantErr: true,
		},
		"Scalar": {
			reason:  "A scalar is not values.",
			yaml:    "md0\n",
			wantErr: true,
		},
		"Malformed": {
			reason:  "YAML that does not parse.",
			yaml:    "nodeGroups: {md0: [\n",
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeValues([]byte(tc.yaml))
			if tc.wantErr {
				require.Error(t, err, tc.reason)
				assert.Empty(t, fixtures.Refused(err), "unusable input is not a refusal")
				return
			}
			require.NoError(t, err, tc.reason)
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}
