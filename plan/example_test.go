package plan_test

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A pool that opts into the catalog clones the golden on the golden's class.
func ExamplePlan_planned() {
	spec := plan.DefaultPoolSpec("demo")
	spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}
	pool := plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: spec}

	values := catalog.Default()
	values.Enabled = true
	res, err := plan.Plan(pool, catalog.Compile(values), state.NewSnapshot(fullState()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outcome, res.Source)
	fmt.Println(res.Disk.Spec.Source.PVC.Namespace + "/" + res.Disk.Spec.Source.PVC.Name)
	fmt.Println(res.StorageClass)
	// Output:
	// planned clone
	// cozy-public/talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6
	// "replicated" (explicit)
}

// A pool on another class than its golden is refused: CDI would copy the
// image over the pod network instead of cloning it.
func ExamplePlan_refused() {
	spec := plan.DefaultPoolSpec("demo")
	spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}
	spec.StorageClass = "local"
	pool := plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: spec}

	values := catalog.Default()
	values.Enabled = true
	_, err := plan.Plan(pool, catalog.Compile(values), state.NewSnapshot(fullState()))

	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.Field)
	}
	// Output:
	// StorageClassMismatch storageClass
}

// Without a snapshot of the cluster, the guards that need it warn instead
// of refusing or passing silently.
func ExamplePlan_offline() {
	spec := plan.DefaultPoolSpec("demo")
	spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}
	values := catalog.Default()
	values.Enabled = true
	res, _ := plan.Plan(plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: spec}, catalog.Compile(values), nil)
	fmt.Println(res.Outcome)
	for _, w := range res.Warnings {
		fmt.Println(w.Reason, w.Kind)
	}
	// Output:
	// planned
	// StateUnverified StorageClass
	// StateUnverified PersistentVolumeClaim
	// StateUnverified DataVolume
	// StateUnverified StorageProfile
	// StateUnverified CDIConfig
}

// A value of a type the chart cannot read is a refusal at its values path,
// reported by Plan with every other finding.
func ExampleDecodePool_invalidValue() {
	pool := plan.DecodePool("tenant-demo", "demo-md0", map[string]any{
		"cluster": "demo",
		"osImage": map[string]any{"builtin": map[string]any{"version": []any{"v1.13.0"}}},
	})
	_, err := plan.Plan(pool, nil, nil)
	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.Field)
	}
	// Output:
	// InvalidValue osImage.builtin.version
}
