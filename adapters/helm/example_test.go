package helm_test

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// A pool without osImage renders the pre-feature chart's text.
func ExampleDiskText() {
	pool, err := helm.Pool("tenant-demo", "demo-md0", map[string]any{"cluster": "demo", "storageClass": ""})
	if err != nil {
		panic(err)
	}
	res, _ := plan.Plan(pool, nil, nil)
	text, _ := helm.DiskText(res, 0)
	fmt.Print(text)
	// Output:
	// - metadata:
	//     name: disk-system
	//     annotations:
	//       cdi.kubevirt.io/storage.usePopulator: "false"
	//   spec:
	//     source:
	//       http:
	//         url: https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz
	//     storage:
	//       resources:
	//         requests:
	//           storage: "20Gi"
}

// A value of the wrong type is a refusal at its values path.
func ExamplePoolSpec_invalidValue() {
	_, err := helm.PoolSpec(map[string]any{
		"cluster": "demo",
		"osImage": map[string]any{"builtin": map[string]any{"version": []any{"v1.13.0"}}},
	})
	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.Field)
	}
	// Output:
	// InvalidValue osImage.builtin.version
}
