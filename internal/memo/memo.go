// Package memo remembers the answers of pure functions of a string that
// the planner asks for every pool (a name's DNS validity, a size's match of
// the charts' quantity pattern, a golden's name) and that cost a regular
// expression each: a controller plans the same pools on every reconcile,
// and a fleet's pools share their namespaces and sizes.
//
// The standard library has no bounded concurrent cache (sync.OnceValue
// remembers one value, sync.Map grows without end), and hostile input must
// not grow this one: so it is a sync.Map with a bound.
package memo

import (
	"strings"
	"sync"
	"sync/atomic"
)

// limit bounds how many answers a Func keeps, and maxKey the length of a
// string it keeps one for, so that hostile input cannot grow it without end:
// past them it asks the function every time.
const (
	limit  = 1 << 14
	maxKey = 256
)

// Func is a function of a string whose answers are remembered. It is safe
// for concurrent use.
type Func[V any] struct {
	f    func(string) V
	seen sync.Map // string → V
	n    atomic.Int64
}

// New remembers f, which must be pure: the same answer for the same
// string, whenever asked.
func New[V any](f func(string) V) *Func[V] { return &Func[V]{f: f} }

// Of is f(s).
func (m *Func[V]) Of(s string) V {
	if v, ok := m.seen.Load(s); ok {
		return v.(V)
	}
	v := m.f(s)
	if len(s) <= maxKey && m.n.Load() < limit {
		// The key is copied: s may be a slice of a large input, which it
		// would otherwise keep alive.
		if _, loaded := m.seen.LoadOrStore(strings.Clone(s), v); !loaded {
			m.n.Add(1)
		}
	}
	return v
}
