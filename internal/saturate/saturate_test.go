package saturate_test

import (
	"math"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/saturate"
)

// TestAddMul: a sum or product that fits is exact, up to the largest
// value; one past it saturates there, for int and int64 alike.
func TestAddMul(t *testing.T) {
	const m = math.MaxInt64
	for _, tc := range []struct {
		name      string
		got, want int64
	}{
		{"add fits", saturate.Add[int64](m-1, 1), m},
		{"add past", saturate.Add[int64](m-1, 2), m},
		{"add zero", saturate.Add[int64](0, 0), 0},
		{"mul fits", saturate.Mul[int64](m/2, 2), m - 1},
		{"mul past", saturate.Mul[int64](m/2+1, 2), m},
		{"mul zero", saturate.Mul[int64](0, m), 0},
		{"mul by zero", saturate.Mul[int64](m, 0), 0},
		{"max", saturate.Max[int64](), m},
	} {
		if tc.got != tc.want {
			t.Errorf("int64 %s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	if got := saturate.Add(math.MaxInt-3, 3); got != math.MaxInt {
		t.Errorf("int add fits: %d", got)
	}
	if got := saturate.Add(math.MaxInt-3, 4); got != math.MaxInt {
		t.Errorf("int add past: %d", got)
	}
	if got := saturate.Add(2, 3); got != 5 {
		t.Errorf("int add: %d", got)
	}
	if got := saturate.Max[int](); got != math.MaxInt {
		t.Errorf("int max: %d", got)
	}
}
