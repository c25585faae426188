package guard_test

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// A caller gets one error for every refusal of a plan; errors.As opens the
// first, errors.Is asks for a reason, and Refusals lists them all.
func ExampleRefusals() {
	c := guard.Collector{Subject: "pool tenant-a/demo-md0"}
	c.Refuse(guard.StorageClassMismatch, field.NewPath("storageClass"), "local",
		"disk class %q differs from the golden's %q; set storageClass to %q", "local", "replicated", "replicated")
	c.Refuse(guard.DiskSmallerThanGolden, field.NewPath("diskSize"), "4Gi",
		"diskSize %s is below the golden's %s; set it to %s or more", "4Gi", "6Gi", "6Gi")
	err := fmt.Errorf("planning: %w", c.Err())

	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println("first:", r.Reason, "at", r.Field)
	}
	fmt.Println("disk too small:", errors.Is(err, &guard.Refusal{Reason: guard.DiskSmallerThanGolden}))
	for _, r := range guard.Refusals(err) {
		fmt.Printf("%s %s (%s)\n", r.Reason, r.Field, r.Subject)
	}
	// Output:
	// first: StorageClassMismatch at storageClass
	// disk too small: true
	// StorageClassMismatch storageClass (pool tenant-a/demo-md0)
	// DiskSmallerThanGolden diskSize (pool tenant-a/demo-md0)
}

// Nothing refused is a nil error, never a typed nil.
func ExampleJoin() {
	fmt.Println(guard.Join() == nil)
	// Output: true
}
