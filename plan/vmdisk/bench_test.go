package vmdisk_test

import (
	"fmt"
	"sync"
	"syscall"
	"testing"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	corev1 "k8s.io/api/core/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// BenchmarkPlan is one VMDisk cloned from an image, planned against the
// healthy cluster.
func BenchmarkPlan(b *testing.B) {
	t := &testing.T{}
	d := disk(t, "data", "{source: {image: {name: ubuntu}}, storage: 20Gi}")
	images, snap := catalogOf(t), healthy()
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		if _, err := vmdisk.Plan(d, images, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeAndPlan is one VMDisk decoded from its object and
// planned, as a controller does on each reconcile of a changed VMDisk:
// the DataVolume is rendered by Decode.
func BenchmarkDecodeAndPlan(b *testing.B) {
	t := &testing.T{}
	obj := map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
		"metadata": map[string]any{"namespace": tenant, "name": "data"},
		"spec":     values(t, "{source: {image: {name: ubuntu}}, storage: 20Gi}")}
	images, snap := catalogOf(t), healthy()
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		d, err := vmdisk.Decode(obj)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := vmdisk.Plan(d, images, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuPerOp reports the process's CPU time (user and system, GC included)
// per operation as cpu-ns/op: on a machine shared with other work, wall
// time says how busy the machine was.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

var (
	largeOnce sync.Once
	largeSnap *state.Snapshot
)

// large is the fleet of 100,000 tenant PVCs in 1,000 namespaces, with the
// image's golden beside the worker goldens.
func large() *state.Snapshot {
	largeOnce.Do(func() {
		st := fleet.State(fleet.Large)
		for _, o := range imageGolden("replicated", cdiv1.Succeeded) {
			switch o := o.(type) {
			case *cdiv1.DataVolume:
				st.DataVolumes = append(st.DataVolumes, *o)
			case *corev1.PersistentVolumeClaim:
				st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, *o)
			case *corev1.PersistentVolume:
				st.PersistentVolumes = append(st.PersistentVolumes, *o)
			}
		}
		largeSnap = state.NewSnapshot(st)
	})
	return largeSnap
}

// BenchmarkPlan10000 plans 10,000 VMDisks, one in ten on another class
// than the image's (refused), against the snapshot of 100,000 PVCs.
func BenchmarkPlan10000(b *testing.B) {
	t := &testing.T{}
	snap, images := large(), catalogOf(t)
	disks := make([]vmdisk.VMDisk, 10000)
	for i := range disks {
		class := "replicated"
		if i%10 == 0 {
			class = "class-01"
		}
		obj := map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
			"metadata": map[string]any{"namespace": fleet.Namespace(i % 1000), "name": fmt.Sprintf("disk-%05d", i)},
			"spec":     map[string]any{"source": map[string]any{"image": map[string]any{"name": image}}, "storage": "20Gi", "storageClass": class}}
		d, err := vmdisk.Decode(obj)
		if err != nil {
			b.Fatal(err)
		}
		disks[i] = d
	}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		refused := 0
		for _, d := range disks {
			if _, err := vmdisk.Plan(d, images, snap); err != nil {
				refused++
			}
		}
		if refused != 1000 {
			b.Fatalf("%d refused, want 1000", refused)
		}
	}
}
