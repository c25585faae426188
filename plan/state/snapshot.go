package state

import (
	"sync"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex/hook"
)

// Snapshot is an indexed, read-only State: every lookup the planner makes is
// a map hit. Build it once with NewSnapshot and hand it to the planner (plan,
// catalog, vmdisk) as often as you like, from any goroutine; it keeps
// pointers into the State's slices, which must not change after.
type Snapshot struct {
	src  *State
	once sync.Once
	ix   any
}

func init() { hook.Index = func(snap any) any { return snap.(*Snapshot).index() } }

// NewSnapshot indexes s. A nil s is the zero State, which knows nothing.
func NewSnapshot(s *State) *Snapshot {
	if s == nil {
		s = &State{}
	}
	x := &Snapshot{src: s}
	if hook.Build != nil {
		x.index()
	}
	return x
}

// index builds the index once, on first use when NewSnapshot ran before
// the index package was initialised.
func (x *Snapshot) index() any {
	x.once.Do(func() { x.ix = hook.Build(x.src) })
	return x.ix
}
