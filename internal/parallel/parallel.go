// Package parallel runs the independent steps of a fleet (one plan per
// pool) on every processor the program may use.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// chunk is how many consecutive steps a goroutine takes at a time: enough
// that handing them out costs nothing next to a plan (about a
// microsecond each), few enough that the goroutines finish together.
const chunk = 64

// StepPanic is what For raises on its caller when a step panicked on
// another goroutine: the step's value, and the stack it panicked on (the
// caller's own stack says nothing of it).
type StepPanic struct {
	Value any
	Stack []byte
}

func (p *StepPanic) Error() string {
	return fmt.Sprintf("%v\n\nthe step's goroutine:\n%s", p.Value, p.Stack)
}

// Unwrap is the step's value, when it is an error.
func (p *StepPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// For calls fn(i) for every i in [0, n), each exactly once, and returns
// when all have returned. Below two chunks, or with one processor, it
// calls them in order on the calling goroutine, and a step's panic is
// fn's own; otherwise on up to GOMAXPROCS goroutines, in no order, so fn
// must be safe for concurrent use and write only what belongs to its i.
// There, the first step to panic stops the others from starting, and once
// they have stopped it is raised on the calling goroutine as a
// *StepPanic, so that the caller's recover sees it; a step that ends its
// goroutine (runtime.Goexit) is raised the same way, since the steps after
// it in its chunk did not run.
func For(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/chunk)
	if workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var (
		next   atomic.Int64
		stop   atomic.Bool
		wg     sync.WaitGroup
		once   sync.Once
		failed *StepPanic
	)
	fail := func(p *StepPanic) {
		once.Do(func() { failed = p })
		stop.Store(true)
	}
	for range workers {
		wg.Go(func() {
			finished := false
			defer func() {
				if r := recover(); r != nil {
					fail(&StepPanic{Value: r, Stack: debug.Stack()})
				} else if !finished {
					fail(&StepPanic{Value: "a step ended its goroutine (runtime.Goexit) before the steps after it ran", Stack: debug.Stack()})
				}
			}()
			for !stop.Load() {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					break
				}
				for i := start; i < min(start+chunk, n); i++ {
					fn(i)
				}
			}
			finished = true
		})
	}
	wg.Wait()
	if failed != nil {
		panic(failed)
	}
}
