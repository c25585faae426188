package kinds

import (
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestQuantityFault: only the fields the API type reads as a Quantity are
// held to size.Check, found by the type (a resource list's values, a
// virtual machine's guest memory): a name or an annotation of seventy
// digits is no quantity, and converts.
func TestQuantityFault(t *testing.T) {
	long := strings.Repeat("9", 70)
	pvc := func(storage, annotation string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": map[string]any{"name": long, "namespace": "tenant-demo", "annotations": map[string]any{"note": annotation}},
			"spec":     map[string]any{"resources": map[string]any{"requests": map[string]any{"storage": storage}}}}
	}
	var st state.State
	if err := AppendUnstructured(&st, state.PersistentVolumeClaim, pvc("20Gi", long)); err != nil || len(st.PersistentVolumeClaims) != 1 {
		t.Fatalf("a long name and annotation: %v", err)
	}
	err := AppendUnstructured(&st, state.PersistentVolumeClaim, pvc(long, "x"))
	if err == nil || !strings.Contains(err.Error(), ".spec.resources.requests.storage") || !strings.Contains(err.Error(), "64 characters") {
		t.Errorf("a long storage: %v", err)
	}
	vm := map[string]any{"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": map[string]any{"name": "vm"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"domain": map[string]any{"memory": map[string]any{"guest": "1e1001"}}}}}}
	if err := AppendUnstructured(&st, state.VirtualMachine, vm); err == nil || !strings.Contains(err.Error(), ".spec.template.spec.domain.memory.guest") {
		t.Errorf("an unbounded guest memory: %v", err)
	}
}
