// Package memo remembers the answers of pure string predicates that the
// planner asks for every pool (a name's DNS validity, a size's match of the
// charts' quantity pattern) and that cost a regular expression each: a
// controller plans the same pools on every reconcile, and a fleet's pools
// share their namespaces and sizes.
package memo

import (
	"strings"
	"sync"
	"sync/atomic"
)

// limit bounds how many answers a Bool keeps, and maxKey the length of a
// string it keeps one for, so that hostile input cannot grow it without end:
// past them it asks the predicate every time.
const (
	limit  = 1 << 14
	maxKey = 256
)

// Bool is a predicate whose answers are remembered. It is safe for
// concurrent use.
type Bool struct {
	f    func(string) bool
	seen sync.Map // string → bool
	n    atomic.Int64
}

// NewBool remembers f, which must be pure: the same answer for the same
// string, whenever asked.
func NewBool(f func(string) bool) *Bool { return &Bool{f: f} }

// Of is f(s).
func (b *Bool) Of(s string) bool {
	if v, ok := b.seen.Load(s); ok {
		return v.(bool)
	}
	v := b.f(s)
	if len(s) <= maxKey && b.n.Load() < limit {
		// The key is copied: s may be a slice of a large input, which it
		// would otherwise keep alive.
		if _, loaded := b.seen.LoadOrStore(strings.Clone(s), v); !loaded {
			b.n.Add(1)
		}
	}
	return v
}

// String is a function of a string whose answers are remembered, within
// the bounds a Bool keeps. It is safe for concurrent use.
type String struct {
	f    func(string) string
	seen sync.Map // string → string
	n    atomic.Int64
}

// NewString remembers f, which must be pure.
func NewString(f func(string) string) *String { return &String{f: f} }

// Of is f(s).
func (m *String) Of(s string) string {
	if v, ok := m.seen.Load(s); ok {
		return v.(string)
	}
	v := m.f(s)
	if len(s) <= maxKey && m.n.Load() < limit {
		if _, loaded := m.seen.LoadOrStore(strings.Clone(s), v); !loaded {
			m.n.Add(1)
		}
	}
	return v
}
