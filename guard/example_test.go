package guard_test

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// A plan's refusals come back as one error of one type, guard.Refusals:
// errors.Is asks for a reason, errors.As opens the list or finds the first
// refusal.
func ExampleRefusals() {
	err := fmt.Errorf("planning: %w", guard.Refusals{
		{Reason: guard.StorageClassMismatch, Field: "storageClass", BadValue: "local",
			Detail: `disk class "local" differs from the golden's "replicated"; set storageClass to "replicated"`},
		{Reason: guard.DiskSmallerThanGolden, Field: "diskSize", BadValue: "4Gi",
			Detail: "diskSize 4Gi is below the golden's 6Gi; set it to 6Gi or more"},
	}.Err())

	fmt.Println("disk too small:", errors.Is(err, guard.DiskSmallerThanGolden))
	fmt.Println("conflict:", errors.Is(err, guard.FrozenStorageClassConflict))
	var rs guard.Refusals
	if errors.As(err, &rs) {
		for _, r := range rs {
			fmt.Println(r.Reason, "at", r.Field)
		}
	}
	// Output:
	// disk too small: true
	// conflict: false
	// StorageClassMismatch at storageClass
	// DiskSmallerThanGolden at diskSize
}

// Nothing refused is a nil error, never a typed nil.
func ExampleRefusals_Err() {
	var rs guard.Refusals
	fmt.Println(rs.Err() == nil)
	// Output: true
}
