package fleet

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// ListYAML prints a state's objects as one List, the way
// kubectl get -o yaml prints it.
func ListYAML(st *state.State) ([]byte, error) {
	var items []any
	typed := func(group, kind string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: group, Kind: kind} }
	for _, o := range st.StorageClasses {
		o.TypeMeta = typed("storage.k8s.io/v1", "StorageClass")
		items = append(items, o)
	}
	for _, o := range st.CSIDrivers {
		o.TypeMeta = typed("storage.k8s.io/v1", "CSIDriver")
		items = append(items, o)
	}
	for _, o := range st.StorageProfiles {
		o.TypeMeta = typed("cdi.kubevirt.io/v1beta1", "StorageProfile")
		items = append(items, o)
	}
	for _, o := range st.CDIs {
		o.TypeMeta = typed("cdi.kubevirt.io/v1beta1", "CDI")
		items = append(items, o)
	}
	for _, o := range st.DataVolumes {
		o.TypeMeta = typed("cdi.kubevirt.io/v1beta1", "DataVolume")
		items = append(items, o)
	}
	for _, o := range st.PersistentVolumeClaims {
		o.TypeMeta = typed("v1", "PersistentVolumeClaim")
		items = append(items, o)
	}
	return yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}})
}
