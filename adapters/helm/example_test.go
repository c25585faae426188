package helm_test

import (
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// A pool without osImage renders the pre-feature chart's text.
func ExampleDiskText() {
	pool := plan.DecodePool("tenant-demo", "demo-md0", map[string]any{"cluster": "demo", "storageClass": ""})
	res, err := plan.Plan(pool, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	text, err := helm.DiskText(res, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
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

// A renderer writes a pool's disk-system entry at the chart's indentation
// without building the DataVolume object: the same guards as plan.Plan.
func ExamplePlanEntry() {
	pool := plan.DecodePool("tenant-demo", "demo-md0", map[string]any{"cluster": "demo", "diskSize": "40Gi"})
	e, err := helm.PlanEntry(pool, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Source, e.InstallerImage)
	fmt.Print(e.Text)
	// Output:
	// http factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6
	//       - metadata:
	//           name: disk-system
	//           annotations:
	//             cdi.kubevirt.io/storage.usePopulator: "false"
	//         spec:
	//           source:
	//             http:
	//               url: https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz
	//           storage:
	//             resources:
	//               requests:
	//                 storage: "40Gi"
	//             storageClassName: "replicated"
}
