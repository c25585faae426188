package cdi_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
)

// CDI inflates a Filesystem request by the filesystem overhead after
// rounding it up to 1MiB, leaves a Block one as it is, and raises either to
// the StorageProfile's minimum.
func ExampleRenderedRequest() {
	show := func(size string, mode corev1.PersistentVolumeMode, minimum *resource.Quantity) {
		q := cdi.RenderedRequest(resource.MustParse(size), mode, "0.06", minimum)
		fmt.Println(size, mode, q.Value())
	}
	show("6400Mi", corev1.PersistentVolumeFilesystem, nil)
	show("6Gi", corev1.PersistentVolumeFilesystem, nil)
	show("20G", corev1.PersistentVolumeFilesystem, nil)
	show("20Gi", corev1.PersistentVolumeBlock, nil)
	floor := resource.MustParse("30Gi")
	show("20Gi", corev1.PersistentVolumeBlock, &floor)
	// Output:
	// 6400Mi Filesystem 7113539584
	// 6Gi Filesystem 6828998001
	// 20G Filesystem 21200570942
	// 20Gi Block 21474836480
	// 20Gi Block 32212254720
}
