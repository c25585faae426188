package storage_test

import (
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/storage"
)

// A plan's class reads with where it came from: a pool that names no class
// and whose disks are bound keeps their class (frozen), whatever the
// cluster default becomes.
func ExampleResolution() {
	r := storage.Resolution{Name: "replicated", From: storage.Frozen}
	fmt.Println(r)
	// Output: "replicated" (frozen)
}
