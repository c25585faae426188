package storage_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The tests of this file pin rules that mutation testing (gremlins, see
// internal/invariants/README.md) found no test exercising.

// TestConflictNamesEveryClass: a conflict's error names each class the
// disks are bound on, so that the refusal built on it can say which to keep.
func TestConflictNamesEveryClass(t *testing.T) {
	_, err := storage.Resolve(storage.Input{Bound: []string{"replicated", "local", "replicated"}, BoundKnown: true})
	var conflict *storage.ConflictError
	if assert.ErrorAs(t, err, &conflict) {
		assert.Equal(t, []string{"local", "replicated"}, conflict.Classes)
		assert.Contains(t, err.Error(), "local")
		assert.Contains(t, err.Error(), "replicated")
	}
}
