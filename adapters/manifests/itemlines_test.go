package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPrintedItemLines: the fast scan of a List as kubectl prints it finds
// the lines the YAML parse finds, and gives way to the parse when the shape
// is not the printed one.
func TestPrintedItemLines(t *testing.T) {
	printed := "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  spec:\n    accessModes:\n    - ReadWriteOnce\n# a comment\n-   kind: CSIDriver\n\n-\n  kind: CDI\nkind: List\nmetadata: {}\n"
	got, ok := printedItemLines([]byte(printed), 10, 3)
	assert.True(t, ok)
	assert.Equal(t, []int{12, 18, 20}, got)
	assert.Equal(t, got, itemLines([]byte(printed), 10, 3))

	for name, doc := range map[string]string{
		"indented sequence":  "items:\n  - kind: A\n  - kind: B\nkind: List\n",
		"flow sequence":      "items: [{kind: A}, {kind: B}]\nkind: List\n",
		"sequence elsewhere": "other:\n- x\nitems:\n- kind: A\n- kind: B\n",
	} {
		_, ok := printedItemLines([]byte(doc), 1, 2)
		assert.False(t, ok, name)
	}
	assert.Equal(t, []int{2, 3}, itemLines([]byte("items:\n  - kind: A\n  - kind: B\nkind: List\n"), 1, 2), "the parse places what the scan cannot")
}
