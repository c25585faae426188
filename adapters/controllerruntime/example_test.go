package controllerruntime_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A reconciler plans from its manager's cache: register CDI's types on the
// manager's scheme, then read through mgr.GetClient(). Here an empty fake
// client stands in for the manager's: the golden is not created yet, which
// the plan reports as pending, not as missing.
func ExampleReader_Read() {
	scheme := runtime.NewScheme()
	if err := controllerruntime.AddToScheme(scheme); err != nil {
		fmt.Println(err)
		return
	}
	c := fake.NewClientBuilder().WithScheme(scheme).Build() // mgr.GetClient()

	pool := plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &plan.Builtin{}}

	st, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
	if err != nil {
		fmt.Println("requeue:", err) // a *ReadError: transient
		return
	}
	values := catalog.Default()
	values.Enabled = true
	res, err := plan.Plan(pool, catalog.Compile(values), state.NewSnapshot(st))
	fmt.Println(res.Outcome, err)
	for _, w := range res.Warnings {
		fmt.Println("warning:", w.Reason, w.Field)
	}
	// Output:
	// planned <nil>
	// warning: GoldenPending osImage.builtin
}
