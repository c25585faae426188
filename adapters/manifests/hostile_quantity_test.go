package manifests_test

import (
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
)

// A quantity no volume has ("3e4444444444444", whose exponent a
// Quantity's UnmarshalJSON would take hours to read, or "1e1001", past
// 10^1000) makes the file unusable, at once, naming the object and the
// field, as the library refuses such a size in values. As YAML and as
// JSON, through the fast path and the general one. Just clear, "1e1000"
// reads.
func TestUnboundedQuantityInAStateFile(t *testing.T) {
	pvc := func(storage string) map[string]string {
		return map[string]string{
			"yaml":     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: x, namespace: tenant-demo}\n  spec:\n    resources:\n      requests:\n        storage: \"" + storage + "\"\n",
			"json":     `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"x","namespace":"tenant-demo"},"spec":{"resources":{"requests":{"storage":"` + storage + `"}}}}]}`,
			"document": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: x, namespace: tenant-demo}\nspec:\n  resources:\n    requests:\n      storage: " + storage + "\n",
		}
	}
	for _, q := range []string{"3e4444444444444", "1e1001"} {
		for format, doc := range pvc(q) {
			_, err := manifests.ReadResult("state.yaml", strings.NewReader(doc))
			if err == nil || !strings.Contains(err.Error(), "spec.resources.requests.storage") {
				t.Errorf("%s: %s: %v; want the field refused", format, q, err)
			}
		}
	}
	for _, q := range []string{"1e30", "1e1000"} {
		for format, doc := range pvc(q) {
			if _, err := manifests.ReadResult("state.yaml", strings.NewReader(doc)); err != nil {
				t.Errorf("%s: %s is a quantity: %v", format, q, err)
			}
		}
	}
}
