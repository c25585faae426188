package manifests_test

import (
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
)

// A quantity no volume has ("3e4444444444444", whose exponent a
// Quantity's UnmarshalJSON would take hours to read, or "1e1001", past
// 10^1000), or a quantity text past 64 characters (two million digits
// take ParseQuantity seconds), makes the file unusable, at once, naming
// the object and the field (and the limit), as the library refuses such a
// size in values. As YAML and as JSON, through the fast path and the
// general one. Just clear, "1e1000" and 64 characters read.
func TestUnboundedQuantityInAStateFile(t *testing.T) {
	pvc := func(storage string) map[string]string {
		return map[string]string{
			"yaml":     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: x, namespace: tenant-demo}\n  spec:\n    resources:\n      requests:\n        storage: \"" + storage + "\"\n",
			"json":     `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"x","namespace":"tenant-demo"},"spec":{"resources":{"requests":{"storage":"` + storage + `"}}}}]}`,
			"document": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: x, namespace: tenant-demo}\nspec:\n  resources:\n    requests:\n      storage: " + storage + "\n",
		}
	}
	for _, q := range []string{"3e4444444444444", "1e1001", "1" + strings.Repeat("0", 63) + "k", strings.Repeat("9", 2_000_000) + "Gi"} {
		for format, doc := range pvc(q) {
			_, err := manifests.Read("state.yaml", strings.NewReader(doc))
			if err == nil || !strings.Contains(err.Error(), "spec.resources.requests.storage") {
				t.Errorf("%s: %.20s: %.300v; want the field refused", format, q, err)
			}
			if len(q) > size.MaxLength && (!strings.Contains(err.Error(), "64 characters") || len(err.Error()) > 1000) {
				t.Errorf("%s: %.20s: %.300v; want the limit named, in a short message", format, q, err)
			}
		}
	}
	for _, q := range []string{"1e30", "1e1000", "1" + strings.Repeat("0", 62) + "k"} {
		for format, doc := range pvc(q) {
			if _, err := manifests.Read("state.yaml", strings.NewReader(doc)); err != nil {
				t.Errorf("%s: %s is a quantity: %v", format, q, err)
			}
		}
	}
}

// A quantity outside a resource list, a virtual machine's guest memory, is
// held to the same bounds: a text past 64 characters makes the file
// unusable, naming the field, before anything parses it; 64 characters
// read.
func TestLongQuantityOutsideAResourceList(t *testing.T) {
	vm := func(memory string) string {
		return "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: vm, namespace: tenant-demo}\nspec:\n  template:\n    spec:\n      domain:\n        memory:\n          guest: \"" + memory + "\"\n        devices: {}\n"
	}
	for _, list := range []bool{false, true} {
		doc := func(memory string) string {
			if !list {
				return vm(memory)
			}
			return "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(vm(memory), "\n"), "\n", "\n  ") + "\n"
		}
		if _, err := manifests.Read("state.yaml", strings.NewReader(doc(strings.Repeat("9", 200_000)))); err == nil || !strings.Contains(err.Error(), "memory.guest") {
			t.Errorf("list %v: %.300v; want spec.template.spec.domain.memory.guest refused", list, err)
		}
		if _, err := manifests.Read("state.yaml", strings.NewReader(doc("1"+strings.Repeat("0", 63)))); err != nil {
			t.Errorf("list %v: a 64-character quantity: %v", list, err)
		}
	}
}

// BenchmarkHostileQuantity reads a state file whose PVC requests two
// million digits, refused on its length: in the time of a small file
// (resource.ParseQuantity took seconds on it).
func BenchmarkHostileQuantity(b *testing.B) {
	for format, doc := range map[string]string{
		"yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: x, namespace: tenant-demo}\n  spec:\n    resources:\n      requests:\n        storage: \"" + strings.Repeat("9", 2_000_000) + "\"\n",
		"json": `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"x","namespace":"tenant-demo"},"spec":{"resources":{"requests":{"storage":"` + strings.Repeat("9", 2_000_000) + `"}}}}]}`,
	} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := manifests.Read("state", strings.NewReader(doc)); err == nil {
					b.Fatal("read")
				}
			}
		})
	}
}
