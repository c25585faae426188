package storageclass_test

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/internal/storageclass"
)

// Disks already bound on two classes are a conflict, never resolved by list
// order; errors.As opens it, and errors.Is tells a cluster without a default
// from one whose classes were not observed.
func ExampleResolve_conflict() {
	_, err := storageclass.Resolve(storageclass.Input{
		Bound:      []string{"replicated", "local"},
		BoundKnown: true,
		Default:    storageclass.DefaultResult{Name: "replicated", Known: true},
	})
	var conflict *storageclass.ConflictError
	if errors.As(err, &conflict) {
		fmt.Println("bound on", conflict.Classes)
	}

	_, err = storageclass.Resolve(storageclass.Input{BoundKnown: true, Default: storageclass.DefaultResult{Known: true}})
	fmt.Println(errors.Is(err, storageclass.ErrNoDefault), errors.Is(err, storageclass.ErrDefaultUnknown))
	// Output:
	// bound on [local replicated]
	// true false
}
