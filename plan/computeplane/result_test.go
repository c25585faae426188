package computeplane

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// TestResultJSON pins the computeplane command's JSON shape: the keys, their
// nesting, and [] rather than null for empty lists.
func TestResultJSON(t *testing.T) {
	cases := map[string]struct {
		reason string
		values string
		want   string
	}{
		"Planned": {
			reason: "A planned ComputePlane: pools, the contract, no findings.",
			values: withEtcd,
			want: `{
				"pools": [{
					"name": "md0",
					"releaseName": "kubernetes-nodes-computeplane-cluster-md0",
					"values": {"cluster": "computeplane-cluster", "minReplicas": 0, "roles": ["ingress-nginx"]}
				}],
				"cluster": {
					"release": "computeplane-cluster",
					"adminKubeconfig": {"secret": "computeplane-cluster-admin-kubeconfig", "key": "super-admin.svc"}
				},
				"warnings": [],
				"refusals": []
			}`,
		},
		"Refused": {
			reason: "A refused ComputePlane: no pools, the contract still, each finding with reason and field.",
			values: "nodeGroups: {md0: {osImage: {}}}\n",
			want: `{
				"pools": [],
				"cluster": {
					"release": "computeplane-cluster",
					"adminKubeconfig": {"secret": "computeplane-cluster-admin-kubeconfig", "key": "super-admin.svc"}
				},
				"warnings": [
					{"reason": "StateUnverified", "field": "_namespace"},
					{"reason": "DroppedField", "field": "nodeGroups.md0.osImage"}
				],
				"refusals": [
					{"reason": "MissingIngressPool", "field": "nodeGroups"}
				]
			}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, _ := Plan(mustDecode(t, tc.values))
			b, err := json.Marshal(res)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, withoutMessages(t, b), tc.reason)
		})
	}
}

// TestResultJSONMessages checks that every finding carries a message that
// names its subject, without pinning its text.
func TestResultJSONMessages(t *testing.T) {
	res, _ := Plan(mustDecode(t, "nodeGroups: {Md0: {osImage: {}}}\n"))
	b, err := json.Marshal(res)
	require.NoError(t, err)
	type finding struct {
		Reason  guard.Reason `json:"reason"`
		Field   string       `json:"field"`
		Message string       `json:"message"`
	}
	var out struct {
		Warnings []finding `json:"warnings"`
		Refusals []finding `json:"refusals"`
	}
	require.NoError(t, json.Unmarshal(b, &out))
	require.NotEmpty(t, out.Refusals)
	for _, f := range append(out.Warnings, out.Refusals...) {
		assert.Contains(t, f.Message, "ComputePlane", "%s at %s names what it is about", f.Reason, f.Field)
	}
	assert.Contains(t, out.Refusals[0].Message, `"Md0"`, "a pool's refusal names the pool")
}

func TestResultJSONZeroValue(t *testing.T) {
	b, err := json.Marshal(Result{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"pools":[],"cluster":{"release":"","adminKubeconfig":{"secret":"","key":""}},"warnings":[],"refusals":[]}`, string(b),
		"lists are never null")
}

// withoutMessages drops the message of each finding, whose text tests do
// not compare.
func withoutMessages(t *testing.T, b []byte) string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, key := range []string{"warnings", "refusals"} {
		for _, f := range doc[key].([]any) {
			finding := f.(map[string]any)
			assert.NotEmpty(t, finding["message"])
			delete(finding, "message")
		}
	}
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(out)
}
