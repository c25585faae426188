package cli_test

import (
	"bytes"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	example "github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The walkthrough's pools plan against its catalog and cluster, as
// `worker-image plan` plans them: one clones the golden, one imports over
// HTTP as before the catalog.
func Example_pools() {
	// The cluster, as `kubectl get -o yaml` printed it.
	rr, err := manifests.Read(example.StateFile, bytes.NewReader(example.State))
	st := rr.State
	if err != nil {
		panic(err)
	}
	// The catalog's values, as Helm holds them.
	var values map[string]any
	if err := yaml.Unmarshal(example.Catalog, &values); err != nil {
		panic(err)
	}
	cat := catalog.Compile(catalog.DecodeValues(values))
	// The KubernetesNodes documents.
	docs, err := manifests.Documents(example.PoolsFile, bytes.NewReader(example.Pools))
	if err != nil {
		panic(err)
	}
	var pools []plan.Pool
	for _, d := range docs {
		pool, err := plan.PoolFromObject(d.Object.Object)
		if err != nil {
			continue // not a KubernetesNodes
		}
		pools = append(pools, pool)
	}
	for _, r := range plan.PlanAll(pools, cat, state.NewSnapshot(st)) {
		fmt.Println(r.Name, r.Outcome, r.Source, r.StorageClass)
	}
	// Output:
	// demo-md0 planned clone "replicated" (explicit)
	// demo-md1 planned http "replicated" (explicit)
}

// The walkthrough's refused pool: errors.Is asks for the reason, and
// errors.As opens the refusal, with the field to change and its value.
func Example_refused() {
	rr, err := manifests.Read(example.StateFile, bytes.NewReader(example.State))
	st := rr.State
	if err != nil {
		panic(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(example.Catalog, &values); err != nil {
		panic(err)
	}
	cat, snap := catalog.Compile(catalog.DecodeValues(values)), state.NewSnapshot(st)
	docs, err := manifests.Documents(example.RefusedFile, bytes.NewReader(example.Refused))
	if err != nil {
		panic(err)
	}
	for _, d := range docs {
		pool, err := plan.PoolFromObject(d.Object.Object)
		if err != nil {
			continue // not a KubernetesNodes
		}
		res, err := plan.Plan(pool, cat, snap)
		var refusal *guard.Refusal
		if errors.Is(err, guard.StorageClassMismatch) && errors.As(err, &refusal) {
			fmt.Println(res.Name, res.Outcome, refusal.Reason, refusal.Field, refusal.BadValue)
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
