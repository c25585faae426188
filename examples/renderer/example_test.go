package renderer_test

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/examples/renderer"
	"github.com/cozystack/kubernetes-worker-image/guard"
)

// A pool without osImage renders the pre-feature chart's text, so its
// KubevirtMachineTemplate keeps its name and its workers stay where they are.
func ExampleRenderer_DataVolumeTemplates() {
	var r renderer.Renderer
	text, _, err := r.DataVolumeTemplates("tenant-demo", "demo-md1", map[string]any{
		"cluster":      "demo",
		"storageClass": "replicated",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)
	// Output:
	//       dataVolumeTemplates:
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
	//                 storage: "20Gi"
	//             storageClassName: "replicated"
}

// A builtin pool whose flavor the catalog does not serve renders nothing:
// the renderer never falls back to the HTTP import.
func ExampleRenderer_DataVolumeTemplates_refused() {
	r := renderer.Renderer{Catalog: catalog.Compile(catalog.Default())} // disabled
	text, _, err := r.DataVolumeTemplates("tenant-demo", "demo-md0", map[string]any{
		"cluster": "demo",
		"osImage": map[string]any{"builtin": map[string]any{}},
	})
	var refusal *guard.Refusal
	if errors.As(err, &refusal) {
		fmt.Println(refusal.Reason, refusal.Field)
	}
	fmt.Printf("text: %q\n", text)
	// Output:
	// GoldenNotInCatalog osImage.builtin
	// text: ""
}
