package computeplane_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
)

// Without nodeGroups a ComputePlane gets the default pool md0.
func ExamplePlan() {
	values, _ := computeplane.DecodeValues([]byte(`
_namespace:
  etcd: tenant-root
`))
	res, err := computeplane.Plan(values)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Pools {
		v, _ := json.Marshal(p.Values)
		fmt.Println(p.ReleaseName, string(v))
	}
	// Output:
	// kubernetes-nodes-computeplane-cluster-md0 {"cluster":"computeplane-cluster","minReplicas":0,"roles":["ingress-nginx"]}
}

// A tenant's osImage never reaches the pool release: it is dropped and
// reported, and the plan stands.
func ExamplePlan_dropped() {
	values, _ := computeplane.DecodeValues([]byte(`
_namespace: {etcd: tenant-root}
nodeGroups:
  workers:
    roles: [ingress-nginx]
    maxReplicas: 4
    osImage:
      builtin: {schematicID: 0123abcd, version: v1.0.0}
`))
	res, _ := computeplane.Plan(values)
	v, _ := json.Marshal(res.Pools[0].Values)
	fmt.Println(res.Pools[0].ReleaseName, string(v))
	for _, w := range res.Warnings {
		fmt.Println(w.Reason, w.Field)
	}
	// Output:
	// kubernetes-nodes-computeplane-cluster-workers {"cluster":"computeplane-cluster","maxReplicas":4,"roles":["ingress-nginx"]}
	// DroppedField nodeGroups.workers.osImage
}

// Every refusal comes back together; errors.As finds the first, and the
// result's Refusals hold them all (as does the error, a guard.Refusals).
func ExamplePlan_refused() {
	values, _ := computeplane.DecodeValues([]byte(`
_namespace: {etcd: tenant-root}
nodeGroups:
  gpu-workers-large: {roles: [ingress-nginx], maxReplicas: 0}
  small: {resources: {cpu: 2}}
`))
	res, err := computeplane.Plan(values)

	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println("first:", r.Reason, r.Field)
	}
	for _, r := range res.Refusals {
		fmt.Println(r.Reason, r.Field)
	}
	fmt.Println("pools:", len(res.Pools))
	// Output:
	// first: PoolNameTooLong nodeGroups.gpu-workers-large
	// PoolNameTooLong nodeGroups.gpu-workers-large
	// IncompleteResources nodeGroups.small.resources
	// MissingIngressPool nodeGroups
	// pools: 0
}

// A tenant without etcd gets a ComputePlane that reports Ready and runs
// nothing; Plan says so.
func ExamplePlan_etcdUnavailable() {
	res, _ := computeplane.Plan(map[string]any{
		"_namespace": map[string]any{"etcd": ""},
	})
	for _, w := range res.Warnings {
		fmt.Println(w.Reason, w.Field)
	}
	// Output:
	// EtcdUnavailable _namespace.etcd
}

// The JSON of `worker-image computeplane -o json`.
func ExampleResult_MarshalJSON() {
	res, _ := computeplane.Plan(map[string]any{
		"_namespace": map[string]any{"etcd": "tenant-root"},
		"nodeGroups": map[string]any{"md0": map[string]any{"roles": []any{"ingress-nginx"}, "diskSize": "50Gi"}},
	})
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(res)
	// Output:
	// {
	//   "pools": [
	//     {
	//       "name": "md0",
	//       "releaseName": "kubernetes-nodes-computeplane-cluster-md0",
	//       "values": {
	//         "cluster": "computeplane-cluster",
	//         "diskSize": "50Gi",
	//         "roles": [
	//           "ingress-nginx"
	//         ]
	//       }
	//     }
	//   ],
	//   "cluster": {
	//     "release": "computeplane-cluster",
	//     "adminKubeconfig": {
	//       "secret": "computeplane-cluster-admin-kubeconfig",
	//       "key": "super-admin.svc"
	//     }
	//   },
	//   "warnings": [],
	//   "refusals": []
	// }
}

// A placement: ComputePlane application reads the cluster's admin
// kubeconfig from the plan's contract, never from a name of its own; each
// pool's release is named within Helm's 53 characters.
func ExamplePlan_contract() {
	res, err := computeplane.Plan(map[string]any{"nodeGroups": map[string]any{"abcdefghijklmno": map[string]any{"roles": []any{"ingress-nginx"}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := res.Cluster
	fmt.Println(c.Release, c.AdminKubeconfig.Secret, c.AdminKubeconfig.Key)
	fmt.Println(res.Pools[0].ReleaseName, len(res.Pools[0].ReleaseName))
	// Output:
	// computeplane-cluster computeplane-cluster-admin-kubeconfig super-admin.svc
	// kubernetes-nodes-computeplane-cluster-abcdefghijklmno 53
}

// DecodeValues keeps numbers as written and refuses nothing: a document
// that is not a map of values is unusable input.
func ExampleDecodeValues() {
	values, err := computeplane.DecodeValues([]byte("nodeGroups: {md0: {maxReplicas: 3}}"))
	fmt.Println(values, err)

	_, err = computeplane.DecodeValues([]byte("- md0"))
	var r *guard.Refusal
	fmt.Println(err != nil, errors.As(err, &r))
	// Output:
	// map[nodeGroups:map[md0:map[maxReplicas:3]]] <nil>
	// true false
}
