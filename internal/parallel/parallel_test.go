package parallel_test

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestForRaisesPanicOnCaller: a step's panic reaches the caller's
// recover: as it is on the serial path, and on the parallel one as a
// *StepPanic carrying its value and the stack of the goroutine it
// panicked on.
func TestForRaisesPanicOnCaller(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	failing := func(n int) (r any) {
		defer func() { r = recover() }()
		parallel.For(n, func(i int) {
			if i == n/2 {
				panicHere()
			}
		})
		return nil
	}
	assert.Equal(t, "step failed", failing(10), "serial: the step's own value")

	got := failing(10000)
	var sp *parallel.StepPanic
	require.IsType(t, sp, got)
	sp = got.(*parallel.StepPanic)
	assert.Equal(t, "step failed", sp.Value)
	assert.Contains(t, string(sp.Stack), "panicHere", "the stack is the step's")
	assert.Contains(t, sp.Error(), "step failed")

	errStep := errors.New("step error")
	r := func() (r any) {
		defer func() { r = recover() }()
		parallel.For(1000, func(i int) {
			if i == 999 {
				panic(errStep)
			}
		})
		return nil
	}()
	err, ok := r.(error)
	require.True(t, ok, "a *StepPanic is an error")
	assert.ErrorIs(t, err, errStep, "and unwraps to the step's error")
}

//go:noinline
func panicHere() { panic("step failed") }

// TestForGoexitIsNoSilentSkip: a step that ends its goroutine leaves the
// steps after it in its chunk unrun; For says so rather than returning as
// if all had run.
func TestForGoexitIsNoSilentSkip(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	r := func() (r any) {
		defer func() { r = recover() }()
		parallel.For(1000, func(i int) {
			if i == 10 {
				runtime.Goexit()
			}
		})
		return nil
	}()
	require.IsType(t, &parallel.StepPanic{}, r)
	assert.Contains(t, r.(*parallel.StepPanic).Value, "Goexit")
}
