package manifests_test

import (
	"bytes"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
)

// TestObjectsShareNoMaps: the objects of a State share no map an importer
// can change. Worker disks carry equal labels, annotations and requests;
// changing one PVC's labels, annotations or requests (the map, or a
// Quantity in it, in place) changes no other object, in every format
// kubectl prints, through the fast path and the general one.
func TestObjectsShareNoMaps(t *testing.T) {
	size := fleet.Workers
	size.PVCs, size.Namespaces = 3, 1
	served := fleet.Served(fleet.State(size))
	for _, f := range []fleet.Format{fleet.YAMLList, fleet.YAMLDocuments, fleet.JSONList, fleet.JSONDocuments} {
		t.Run(f.String(), func(t *testing.T) {
			data, err := fleet.Print(served, f)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := manifests.Read("state", bytes.NewReader(data))
			st := rr.State
			if err != nil {
				t.Fatal(err)
			}
			pvcs := st.PersistentVolumeClaims
			if len(pvcs) < 2 {
				t.Fatalf("%d PVCs", len(pvcs))
			}
			before := fmt.Sprint(pvcs[1:], st.DataVolumes)
			first := &pvcs[0]
			for k := range first.Labels {
				first.Labels[k] = "changed"
			}
			first.Labels["added"] = "x"
			for k := range first.Annotations {
				first.Annotations[k] = "changed"
			}
			if first.Annotations == nil {
				t.Fatal("a served PVC carries annotations")
			}
			storage := first.Spec.Resources.Requests[corev1.ResourceStorage]
			storage.Add(resource.MustParse("1Gi"))
			first.Spec.Resources.Requests[corev1.ResourceStorage] = storage
			if q := first.Status.Capacity[corev1.ResourceStorage]; q.Sign() > 0 {
				p := &q
				p.Add(resource.MustParse("1Gi"))
			}
			first.Spec.Resources.Requests["added"] = resource.MustParse("1")
			if after := fmt.Sprint(pvcs[1:], st.DataVolumes); after != before {
				t.Errorf("changing one PVC changed others:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}
