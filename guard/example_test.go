package guard_test

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// A plan's refusals are data in its result and come back as one error,
// rs.Err(): errors.Is asks for a reason anywhere in it, errors.As finds
// the first refusal, and the result lists them all.
func ExampleRefusals() {
	rs := guard.Refusals{
		{Reason: guard.StorageClassMismatch, Field: "storageClass", BadValue: "local",
			Detail: `disk class "local" differs from the golden's "replicated"; set storageClass to "replicated"`},
		{Reason: guard.DiskSmallerThanGolden, Field: "diskSize", BadValue: "4Gi",
			Detail: "diskSize 4Gi is below the golden's 6Gi; set it to 6Gi or more"},
	}
	err := fmt.Errorf("planning: %w", rs.Err())

	fmt.Println("disk too small:", errors.Is(err, guard.DiskSmallerThanGolden))
	fmt.Println("conflict:", errors.Is(err, guard.FrozenStorageClassConflict))
	var first *guard.Refusal
	if errors.As(err, &first) {
		fmt.Println("first:", first.Reason)
	}
	for _, r := range rs {
		fmt.Println(r.Reason, "at", r.Field)
	}
	// Output:
	// disk too small: true
	// conflict: false
	// first: StorageClassMismatch
	// StorageClassMismatch at storageClass
	// DiskSmallerThanGolden at diskSize
}

// Nothing refused is a nil error, never a typed nil.
func ExampleRefusals_Err() {
	var rs guard.Refusals
	fmt.Println(rs.Err() == nil)
	// Output: true
}
