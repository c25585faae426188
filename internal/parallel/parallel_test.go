package parallel_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/parallel"
)

// TestForEachOnce: every index is called exactly once, at sizes on both
// sides of the serial bound and of a chunk's edge, with one processor and
// with several.
func TestForEachOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 63, 64, 127, 128, 129, 1000, 4097} {
			calls := make([]atomic.Int32, n)
			parallel.For(n, func(i int) { calls[i].Add(1) })
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("GOMAXPROCS %d, n %d: index %d called %d times", procs, n, i, c)
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

// TestForSerialBelowTwoChunks: a small fleet runs on the caller's
// goroutine, in order.
func TestForSerialBelowTwoChunks(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	var order []int // written without a lock: the race detector would see two goroutines
	parallel.For(127, func(i int) { order = append(order, i) })
	for i, v := range order {
		if v != i {
			t.Fatalf("step %d ran %d-th", v, i)
		}
	}
	if len(order) != 127 {
		t.Fatalf("%d steps ran, want 127", len(order))
	}
}

// TestForRaisesPanicOnCaller: a step's panic reaches the caller's recover
// with its value, on the serial path and on the parallel one.
func TestForRaisesPanicOnCaller(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	for _, n := range []int{10, 10000} {
		got := func() (r any) {
			defer func() { r = recover() }()
			parallel.For(n, func(i int) {
				if i == n/2 {
					panic("step failed")
				}
			})
			return nil
		}()
		if got != "step failed" {
			t.Fatalf("n %d: recovered %v, want the step's panic", n, got)
		}
	}
}
