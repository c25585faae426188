package computeplane

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanGoValues: Plan takes ComputePlane values as a Go caller builds
// them ([]string roles, map[string]string resources, map[string]map[string]any
// node groups) and plans them as it plans the same values decoded from
// JSON, by DecodeValues (the CLI) and by encoding/json (numbers float64, as
// Flux hands them to Helm).
func TestPlanGoValues(t *testing.T) {
	etcd := map[string]string{"etcd": "tenant-root"}
	cases := map[string]struct {
		reason string
		values map[string]any
		// pools are the pools planned, which every case has.
		pools []string
	}{
		"Roles": {
			reason: "A []string of roles is the list Helm holds.",
			values: map[string]any{"_namespace": etcd, "nodeGroups": map[string]any{
				"md0": map[string]any{"roles": []string{ingressRole, "worker"}, "maxReplicas": 3},
			}},
			pools: []string{"md0"},
		},
		"Resources": {
			reason: "A map[string]string of resources is the map Helm holds.",
			values: map[string]any{"_namespace": etcd, "nodeGroups": map[string]any{
				"md0": map[string]any{"roles": []string{ingressRole}, "resources": map[string]string{"cpu": "2", "memory": "4Gi"}},
			}},
			pools: []string{"md0"},
		},
		"NodeGroups": {
			reason: "A map[string]map[string]any of node groups is the map Helm holds.",
			values: map[string]any{"_namespace": etcd, "nodeGroups": map[string]map[string]any{
				"md0": {"roles": []string{ingressRole}, "diskSize": "30Gi", "storageClass": "fast"},
				"gpu": {"roles": []string{"worker"}, "gpus": []map[string]string{{"name": "nvidia.com/AD102GL_L40S"}},
					"kubelet": map[string]string{"kubeReservedCpu": "250m"}},
			}},
			pools: []string{"gpu", "md0"},
		},
		"DroppedFields": {
			reason: "Fields outside the allowlist of Go types are dropped and reported alike.",
			values: map[string]any{"_namespace": etcd, "nodeGroups": map[string]map[string]any{
				"md0": {"roles": []string{ingressRole}, "osImage": map[string]map[string]string{"builtin": {"version": "v1.13.6"}},
					"resources": map[string]string{"cpu": "2", "memory": "4Gi", "gpu": "1"}},
			}},
			pools: []string{"md0"},
		},
		"Refused": {
			reason: "Refusals of Go values are the refusals of the decoded ones.",
			values: map[string]any{"_namespace": etcd, "nodeGroups": map[string]map[string]any{
				"md0": {"roles": []string{"worker"}, "resources": map[string]string{"cpu": "2"}},
			}},
		},
		"NilGroup": {
			reason: "A nil map beside a real group is null once encoded, and null is no group (Helm deletes the key).",
			values: map[string]any{"_namespace": etcd, "nodeGroups": map[string]map[string]any{
				"md0": {"roles": []string{ingressRole}},
				"old": nil,
			}},
			pools: []string{"md0"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(tc.values)
			require.NoError(t, err)
			viaDecodeValues, err := DecodeValues(data)
			require.NoError(t, err)
			var viaJSON map[string]any
			require.NoError(t, json.Unmarshal(data, &viaJSON))

			got, gotErr := Plan(tc.values)
			assert.Equal(t, tc.pools, poolNames(got.Pools), tc.reason)
			for decoder, values := range map[string]map[string]any{"DecodeValues": viaDecodeValues, "encoding/json": viaJSON} {
				want, wantErr := Plan(values)
				assert.Equal(t, refusalsOf(wantErr), refusalsOf(gotErr), "%s: refusals as from %s", tc.reason, decoder)
				assert.Equal(t, warningsOf(want.Warnings), warningsOf(got.Warnings), "%s: warnings as from %s", tc.reason, decoder)
				wantJSON, err := json.Marshal(want)
				require.NoError(t, err)
				gotJSON, err := json.Marshal(got)
				require.NoError(t, err)
				assert.JSONEq(t, string(wantJSON), string(gotJSON), "%s: the plan of %s", tc.reason, decoder)
			}
		})
	}
}

// TestPlanEmptyStrings: a group is forwarded as the computeplane chart
// forwarded it, verbatim, "" included, but for storageClass: "". The wrapped
// chart gave an empty class the application's replicated, never the cluster
// default, so it is left out and the pool chart's default, replicated,
// applies. An empty instanceType names none in both
// charts, and is forwarded; an empty diskSize or cpu matches no quantity,
// and the values schema refuses it (a pool chart would take "" for 20Gi; the
// computeplane chart refuses it).
func TestPlanEmptyStrings(t *testing.T) {
	cases := map[string]struct {
		reason   string
		group    string
		values   string
		refusals []string
		warnings []string
	}{
		"EmptyStorageClass": {
			reason: `storageClass: "" leaves the class to the pool chart's default.`,
			group:  `{roles: [ingress-nginx], storageClass: ""}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"]}`,
		},
		"StorageClass": {
			reason: "Neighbour: a class is forwarded.",
			group:  `{roles: [ingress-nginx], storageClass: fast}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "storageClass": "fast"}`,
		},
		"BlankStorageClass": {
			reason: "Neighbour: a blank is not empty, and is forwarded as written.",
			group:  `{roles: [ingress-nginx], storageClass: " "}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "storageClass": " "}`,
		},
		"EmptyInstanceType": {
			reason: `instanceType: "" is forwarded: left out, the pool chart would size the VM by its u1.medium.`,
			group:  `{roles: [ingress-nginx], instanceType: "", storageClass: ""}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "instanceType": ""}`,
		},
		"EmptyKubelet": {
			reason: "An empty reservation is forwarded; both charts compute it then.",
			group:  `{roles: [ingress-nginx], kubelet: {systemReservedMemory: ""}}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "kubelet": {"systemReservedMemory": ""}}`,
		},
		"EmptyDiskSize": {
			reason: `diskSize: "" is not forwarded: the pool chart's 20Gi applies, and its values schema, which refuses "", never sees it.`,
			group:  `{roles: [ingress-nginx], diskSize: ""}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"]}`,
		},
		"DiskSize": {
			reason: "Neighbour: a size is forwarded.",
			group:  `{roles: [ingress-nginx], diskSize: 30Gi}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "diskSize": "30Gi"}`,
		},
		"MalformedDiskSize": {
			reason:   "Neighbour: a blank is set, forwarded as written (the templates render it), with a warning that the values schema refuses it.",
			group:    `{roles: [ingress-nginx], diskSize: " "}`,
			values:   `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "diskSize": " "}`,
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
		},
		"EmptyCpu": {
			reason:   `resources.cpu: "" is not set to the template's and, and not forwarded, so a lone memory is incomplete.`,
			group:    `{roles: [ingress-nginx], resources: {cpu: "", memory: 4Gi}}`,
			refusals: []string{"IncompleteResources nodeGroups.md0.resources"},
		},
		"EmptyCpuAndMemory": {
			reason: `Neighbour: resources {cpu: "", memory: ""} sets neither, and forwards neither.`,
			group:  `{roles: [ingress-nginx], resources: {cpu: "", memory: ""}}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "resources": {}}`,
		},
		"ZeroCpuAndMemory": {
			reason: "resources {cpu: 0, memory: 0} sets neither to the template's and: no InvalidQuantity, and neither is forwarded.",
			group:  `{roles: [ingress-nginx], resources: {cpu: 0, memory: 0}}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "resources": {}}`,
		},
		"FalseDiskSizeAndClass": {
			reason: "diskSize and storageClass false are unset to the templates' default: not forwarded, so the pool chart's 20Gi and replicated apply, and its values schema, which refuses a boolean, never sees them.",
			group:  `{roles: [ingress-nginx], diskSize: false, storageClass: false}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"]}`,
		},
		"Cpu": {
			reason: "Neighbour: both set are forwarded.",
			group:  `{roles: [ingress-nginx], resources: {cpu: "2", memory: 4Gi}}`,
			values: `{"cluster": "computeplane-cluster", "roles": ["ingress-nginx"], "resources": {"cpu": "2", "memory": "4Gi"}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := Plan(mustDecode(t, withEtcd+"nodeGroups:\n  md0: "+tc.group+"\n"))
			assert.Equal(t, tc.refusals, refusalsOf(err), tc.reason)
			assert.Equal(t, tc.warnings, warningsOf(res.Warnings), tc.reason)
			if tc.refusals != nil {
				return
			}
			require.Len(t, res.Pools, 1)
			got, err := res.Pools[0].jsonValues()
			require.NoError(t, err)
			assert.JSONEq(t, tc.values, got, tc.reason)
		})
	}
}
