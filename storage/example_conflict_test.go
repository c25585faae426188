package storage_test

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/storage"
)

// Disks already bound on two classes are a conflict, never resolved by list
// order; errors.As opens it, and errors.Is tells a cluster without a default
// from one whose classes were not observed.
func ExampleResolve_conflict() {
	_, err := storage.Resolve(storage.Input{
		Bound:      []string{"replicated", "local"},
		BoundKnown: true,
		Default:    "replicated", DefaultKnown: true,
	})
	var conflict *storage.ConflictError
	if errors.As(err, &conflict) {
		fmt.Println("bound on", conflict.Classes)
	}

	_, err = storage.Resolve(storage.Input{BoundKnown: true, DefaultKnown: true})
	fmt.Println(errors.Is(err, storage.ErrNoDefault), errors.Is(err, storage.ErrDefaultUnknown))
	// Output:
	// bound on [local replicated]
	// true false
}
