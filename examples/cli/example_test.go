package cli_test

import (
	"bytes"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	example "github.com/cozystack/kubernetes-worker-image/examples/cli"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// planFile reads the KubernetesNodes documents of a file and plans them against
// the walkthrough's catalog and cluster, as `worker-image plan` does.
func planFile(name string, data []byte) []plan.Result {
	st, _, err := manifests.Read(example.StateFile, bytes.NewReader(example.State))
	if err != nil {
		panic(err)
	}
	var cv map[string]any
	if err := yaml.Unmarshal(example.Catalog, &cv); err != nil {
		panic(err)
	}
	values, err := helm.CatalogValues(cv)
	if err != nil {
		panic(err)
	}
	docs, err := manifests.Documents(name, bytes.NewReader(data))
	if err != nil {
		panic(err)
	}
	var pools []plan.Pool
	for _, d := range docs {
		spec, _ := d.Object.Object["spec"].(map[string]any)
		pool, err := helm.Pool(d.Object.GetNamespace(), d.Object.GetName(), spec)
		if err != nil {
			panic(err)
		}
		pools = append(pools, pool)
	}
	return plan.PlanAll(pools, catalog.Compile(values), state.NewSnapshot(st))
}

// The walkthrough's pools plan: one clones the golden, one imports over
// HTTP as before the catalog.
func Example_pools() {
	for _, r := range planFile(example.PoolsFile, example.Pools) {
		fmt.Println(r.Name, r.Outcome, r.Source, r.StorageClass)
	}
	// Output:
	// demo-md0 planned clone "replicated" (explicit)
	// demo-md1 planned http "replicated" (explicit)
}

// The walkthrough's refused pool: errors.As opens its refusal, with the
// field to change.
func Example_refused() {
	for _, r := range planFile(example.RefusedFile, example.Refused) {
		var refusal *guard.Refusal
		if errors.As(r.Err, &refusal) {
			fmt.Println(r.Name, r.Outcome, refusal.Reason, refusal.Field, refusal.BadValue)
		}
	}
	// Output:
	// demo-gpu refused StorageClassMismatch storageClass local
}

// The walkthrough's ComputePlane: the tenant's osImage is dropped.
func Example_computePlane() {
	values, err := computeplane.DecodeValues(example.ComputePlane)
	if err != nil {
		panic(err)
	}
	res, err := computeplane.Plan(values)
	if err != nil {
		panic(err)
	}
	for _, p := range res.Pools {
		fmt.Println(p.ReleaseName)
	}
	for _, w := range res.Warnings {
		fmt.Println(w.Reason, w.Field)
	}
	// Output:
	// kubernetes-nodes-computeplane-cluster-gpu
	// kubernetes-nodes-computeplane-cluster-md0
	// DroppedField nodeGroups.md0.osImage
}
