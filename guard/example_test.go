package guard_test

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// A plan's refusals come back as one error of one type, guard.Refusals:
// errors.Is asks for a reason, errors.As opens the list or finds the first
// refusal.
func ExampleRefusals() {
	err := fmt.Errorf("planning: %w", guard.Refusals{
		guard.NewRefusal(guard.StorageClassMismatch, field.NewPath("storageClass"), "local",
			"disk class %q differs from the golden's %q; set storageClass to %q", "local", "replicated", "replicated"),
		guard.NewRefusal(guard.DiskSmallerThanGolden, field.NewPath("diskSize"), "4Gi",
			"diskSize %s is below the golden's %s; set it to %s or more", "4Gi", "6Gi", "6Gi"),
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
