package manifests_test

import (
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
)

// A quantity whose exponent no volume has ("3e4444444444444") makes the
// file unusable, at once, naming the object and the field: a Quantity's
// UnmarshalJSON would take hours to read it. As YAML and as JSON, through
// the fast path and the general one. Just clear, "1e30" reads.
func TestUnboundedQuantityInAStateFile(t *testing.T) {
	pvc := func(storage string) map[string]string {
		return map[string]string{
			"yaml":     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: x, namespace: tenant-demo}\n  spec:\n    resources:\n      requests:\n        storage: \"" + storage + "\"\n",
			"json":     `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"x","namespace":"tenant-demo"},"spec":{"resources":{"requests":{"storage":"` + storage + `"}}}}]}`,
			"document": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: x, namespace: tenant-demo}\nspec:\n  resources:\n    requests:\n      storage: " + storage + "\n",
		}
	}
	for format, doc := range pvc("3e4444444444444") {
		_, err := manifests.ReadResult("state.yaml", strings.NewReader(doc))
		if err == nil || !strings.Contains(err.Error(), "spec.resources.requests.storage") {
			t.Errorf("%s: %v; want the field refused", format, err)
		}
	}
	for format, doc := range pvc("1e30") {
		if _, err := manifests.ReadResult("state.yaml", strings.NewReader(doc)); err != nil {
			t.Errorf("%s: 1e30 is a quantity: %v", format, err)
		}
	}
}
