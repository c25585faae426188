package fleet

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// ListYAML prints a state's objects as one List, the way
// kubectl get -o yaml prints it.
func ListYAML(st *state.State) ([]byte, error) {
	var items []any
	items = typed(items, schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"}, st.StorageClasses)
	items = typed(items, schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver"}, st.CSIDrivers)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile"}, st.StorageProfiles)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDI"}, st.CDIs)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "DataVolume"}, st.DataVolumes)
	items = typed(items, schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, st.PersistentVolumeClaims)
	return yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}})
}

// typed appends copies of objs with their apiVersion and kind, which typed
// objects built in Go lack.
func typed[T any, P interface {
	*T
	GetObjectKind() schema.ObjectKind
}](items []any, gvk schema.GroupVersionKind, objs []T) []any {
	for _, o := range objs {
		P(&o).GetObjectKind().SetGroupVersionKind(gvk)
		items = append(items, o)
	}
	return items
}
