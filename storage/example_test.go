package storage_test

import (
	"fmt"

	storagev1 "k8s.io/api/storage/v1"

	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The virt default wins over the GA default, which wins over a newer
// beta-only one.
func ExampleDefaultClass() {
	classes := []storagev1.StorageClass{
		class("local", 9, storage.BetaDefaultAnnotation, "true"),
		class("replicated", 0, storage.DefaultAnnotation, "true"),
	}
	fmt.Println(storage.DefaultClass(classes))
	classes = append(classes, class("virt", 0, storage.VirtDefaultAnnotation, "true"))
	fmt.Println(storage.DefaultClass(classes))
	// Output:
	// replicated
	// virt
}

// A pool with an empty class whose disks are already bound keeps their class
// when the cluster default moves.
func ExampleResolve_frozen() {
	r, err := storage.Resolve(storage.Input{
		Bound:        []string{"replicated", "replicated"},
		BoundKnown:   true,
		Default:      "local",
		DefaultKnown: true,
	})
	fmt.Println(r, err)
	// Output: "replicated" (frozen) <nil>
}
