package memo

import (
	"strings"
	"sync"
	"testing"
)

// Of answers as the predicate does, asks it once per string it keeps, and
// keeps no string past the length bound nor past the count bound.
func TestBool(t *testing.T) {
	calls := map[string]int{}
	var mu sync.Mutex
	b := New(func(s string) bool {
		mu.Lock()
		calls[s]++
		mu.Unlock()
		return strings.HasPrefix(s, "a")
	})
	for range 3 {
		if !b.Of("abc") || b.Of("xyz") {
			t.Fatal("answers differ from the predicate's")
		}
	}
	if calls["abc"] != 1 || calls["xyz"] != 1 {
		t.Errorf("asked %v: once per string kept", calls)
	}
	long := "a" + strings.Repeat("b", maxKey)
	b.Of(long)
	b.Of(long)
	if calls[long] != 2 {
		t.Errorf("a string past %d bytes is asked every time, got %d", maxKey, calls[long])
	}
	b.n.Store(limit)
	b.Of("a-new")
	b.Of("a-new")
	if calls["a-new"] != 2 {
		t.Errorf("past the count bound nothing is kept, got %d", calls["a-new"])
	}
}

// Concurrent askers get the predicate's answers (go test -race).
func TestBoolConcurrent(t *testing.T) {
	b := New(func(s string) bool { return len(s)%2 == 0 })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 1000 {
				s := strings.Repeat("x", (i+j)%17)
				if b.Of(s) != (len(s)%2 == 0) {
					t.Error("wrong answer")
				}
			}
		})
	}
	wg.Wait()
}

// String answers as its function does, and asks it once per string.
func TestString(t *testing.T) {
	calls := 0
	m := New(func(s string) string { calls++; return strings.ToUpper(s) })
	for range 3 {
		if got := m.Of("abc"); got != "ABC" {
			t.Fatalf("Of(abc) = %q", got)
		}
	}
	if calls != 1 {
		t.Errorf("asked %d times, want once", calls)
	}
	long := strings.Repeat("x", maxKey+1)
	m.Of(long)
	m.Of(long)
	if calls != 3 {
		t.Errorf("a string past the length bound is asked every time: %d calls, want 3", calls)
	}
}
