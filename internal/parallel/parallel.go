// Package parallel runs the independent steps of a fleet (one plan per
// pool) on every processor the program may use.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// chunk is how many consecutive steps a goroutine takes at a time: enough
// that handing them out costs nothing next to a plan (about a
// microsecond each), few enough that the goroutines finish together.
const chunk = 64

// For calls fn(i) for every i in [0, n), each exactly once, and returns
// when all have returned. Below two chunks, or with one processor, it
// calls them in order on the calling goroutine; otherwise on up to
// GOMAXPROCS goroutines, in no order, so fn must be safe for concurrent
// use and write only what belongs to its i. A panic in fn is raised again
// on the calling goroutine, once the others have stopped, as a serial
// loop would raise it: the caller's recover sees it.
func For(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/chunk)
	if workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var (
		next     atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
		once     sync.Once
		panicked any
		didPanic bool
	)
	for range workers {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { panicked, didPanic = r, true })
					stop.Store(true)
				}
			}()
			for !stop.Load() {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
	if didPanic {
		panic(panicked)
	}
}
