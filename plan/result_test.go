package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestResultJSON pins the pool entry of `worker-image plan -o json`: every key,
// findings as {reason, field, message} (a StateUnverified adds the kind), []
// rather than null for no findings, the disk absent when refused, and the
// disk's storage request written as the chart renders diskSize, also when it is
// no quantity.
func TestResultJSON(t *testing.T) {
	const installer = `"installerImage": "factory.talos.dev/installer/` + chartdefaults.SchematicID + `:` + chartdefaults.Version + `"`
	cases := map[string]struct {
		reason string
		pool   plan.Pool
		snap   *state.Snapshot
		want   string
	}{
		"planned HTTP, malformed size": {
			reason: "0 refusals: the disk as the chart renders it, its request the size's text",
			pool: func() plan.Pool {
				p := httpPool()
				p.Spec.DiskSize = "-20Gi"
				return p
			}(),
			want: `{
				"namespace": "tenant-demo", "name": "demo-md0", "outcome": "planned", "source": "http", "golden": "",
				"disk": {
					"metadata": {"name": "disk-system", "annotations": {"cdi.kubevirt.io/storage.usePopulator": "false"}},
					"spec": {
						"source": {"http": {"url": "` + defaultURL + `"}},
						"storage": {"resources": {"requests": {"storage": "-20Gi"}}, "storageClassName": "replicated"}
					}
				},
				` + installer + `,
				"storageClass": {"name": "replicated", "from": "explicit"},
				"warnings": [{"reason": "InvalidQuantity", "field": "diskSize"}],
				"refusals": []
			}`,
		},
		"planned HTTP, a number of bytes": {
			reason: "Flux's float64 21474836480 is rendered as the chart renders it",
			pool:   plan.DecodePool(tenantNS, "demo-md0", map[string]any{"cluster": "demo", "diskSize": 21474836480.0, "storageClass": ""}),
			want: `{
				"namespace": "tenant-demo", "name": "demo-md0", "outcome": "planned", "source": "http", "golden": "",
				"disk": {
					"metadata": {"name": "disk-system", "annotations": {"cdi.kubevirt.io/storage.usePopulator": "false"}},
					"spec": {
						"source": {"http": {"url": "` + defaultURL + `"}},
						"storage": {"resources": {"requests": {"storage": "2.147483648e+10"}}}
					}
				},
				` + installer + `,
				"storageClass": {"name": "", "from": "cluster"},
				"warnings": [],
				"refusals": []
			}`,
		},
		"planned clone": {
			reason: "0 refusals on the clone path: the golden, the disk with its annotations and class",
			pool:   builtinPool(),
			snap:   state.NewSnapshot(fullState()),
			want: `{
				"namespace": "tenant-demo", "name": "demo-md0", "outcome": "planned", "source": "clone", "golden": "` + golden + `",
				"disk": {
					"metadata": {"name": "disk-system", "annotations": {
						"kubernetes-worker-image.cozystack.io/golden": "` + golden + `",
						"kubernetes-worker-image.cozystack.io/pool": "kubernetes-demo-md0"
					}},
					"spec": {
						"source": {"pvc": {"namespace": "cozy-public", "name": "` + golden + `"}},
						"storage": {"resources": {"requests": {"storage": "20Gi"}}, "storageClassName": "replicated"}
					}
				},
				` + installer + `,
				"storageClass": {"name": "replicated", "from": "explicit"},
				"warnings": [],
				"refusals": []
			}`,
		},
		"one refusal": {
			reason: "a refused pool: no disk, only its name, outcome and findings meaningful",
			pool: func() plan.Pool {
				p := builtinPool()
				p.Spec.StorageClass = "local"
				return p
			}(),
			snap: state.NewSnapshot(fullState()),
			want: `{
				"namespace": "tenant-demo", "name": "demo-md0", "outcome": "refused", "source": "", "golden": "",
				"installerImage": "", "storageClass": {"name": "", "from": ""},
				"warnings": [],
				"refusals": [{"reason": "StorageClassMismatch", "field": "storageClass"}]
			}`,
		},
		"two refusals": {
			reason: "every refusal in order, with the warnings of the same plan",
			pool: func() plan.Pool {
				p := builtinPool()
				p.Name = "md0"
				p.Spec.StorageClass = "local"
				return p
			}(),
			// Offline: the values prove the mismatch against the catalog's
			// entry; the golden's kinds, and what CDI renders the disk from,
			// are said unverified.
			snap: nil,
			want: `{
				"namespace": "tenant-demo", "name": "md0", "outcome": "refused", "source": "", "golden": "",
				"installerImage": "", "storageClass": {"name": "", "from": ""},
				"warnings": [
					{"reason": "StateUnverified", "field": "storageClass", "kind": "StorageClass"},
					{"reason": "StateUnverified", "field": "osImage.builtin", "kind": "PersistentVolumeClaim"},
					{"reason": "StateUnverified", "field": "osImage.builtin", "kind": "DataVolume"},
					{"reason": "StateUnverified", "field": "storageClass", "kind": "StorageProfile"},
					{"reason": "StateUnverified", "field": "storageClass", "kind": "CDIConfig"}
				],
				"refusals": [
					{"reason": "InvalidPoolName", "field": "metadata.name"},
					{"reason": "StorageClassMismatch", "field": "storageClass"}
				]
			}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, _ := plan.Plan(tc.pool, enabledCatalog(), tc.snap)
			b, err := json.Marshal(res)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, withoutMessages(t, b), tc.reason)
		})
	}
}

// TestResultJSONMessages: each finding's message names the pool, without
// its text being pinned.
func TestResultJSONMessages(t *testing.T) {
	p := builtinPool()
	p.Spec.StorageClass = "local"
	res, _ := plan.Plan(p, enabledCatalog(), nil)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var out struct {
		Warnings []map[string]string `json:"warnings"`
		Refusals []map[string]string `json:"refusals"`
	}
	require.NoError(t, json.Unmarshal(b, &out))
	require.NotEmpty(t, out.Refusals)
	require.NotEmpty(t, out.Warnings)
	for _, f := range append(out.Warnings, out.Refusals...) {
		assert.Contains(t, f["message"], "pool tenant-demo/demo-md0", "%s at %s names the pool", f["reason"], f["field"])
	}
}

// TestResultJSONZeroValue: a Result never marshals a null list.
func TestResultJSONZeroValue(t *testing.T) {
	b, err := json.Marshal(plan.Result{Refusals: guard.Refusals{}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"namespace":"","name":"","outcome":"","source":"","golden":"","installerImage":"",
		"storageClass":{"name":"","from":""},"warnings":[],"refusals":[]}`, string(b))
}

// withoutMessages drops the message of each finding, whose text tests do
// not compare, after checking that it is there.
func withoutMessages(t *testing.T, b []byte) string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, key := range []string{"warnings", "refusals"} {
		findings, ok := doc[key].([]any)
		require.True(t, ok, "%s is a list: %s", key, b)
		for _, f := range findings {
			finding := f.(map[string]any)
			assert.NotEmpty(t, finding["message"])
			delete(finding, "message")
		}
	}
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(out)
}

// TestEntryJSON: a helm.Entry marshals with Result's keys for the fields they
// share, the text in "text", and never a null list.
func TestEntryJSON(t *testing.T) {
	b, err := json.Marshal(helm.Entry{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"namespace":"","name":"","outcome":"","source":"","golden":"","installerImage":"","text":"","warnings":[],"refusals":[]}`, string(b))

	refused := httpPool()
	refused.Name = "Not_A_Name"
	e, err := helm.PlanEntry(refused, nil, nil)
	require.Error(t, err)
	b, err = json.Marshal(e)
	require.NoError(t, err)
	assert.JSONEq(t, `{"namespace":"tenant-demo","name":"Not_A_Name","outcome":"refused","source":"","golden":"","installerImage":"","text":"",
		"warnings":[],"refusals":[{"reason":"InvalidPoolName","field":"metadata.name"}]}`, withoutMessages(t, b))
}
