package whatif

import (
	"math"
	"testing"
)

// TestSaturate: a sum or product that fits is exact, up to the largest
// value; one past it saturates there.
func TestSaturate(t *testing.T) {
	const m = math.MaxInt64
	for _, tc := range []struct {
		name      string
		got, want int64
	}{
		{"add fits", addSat(m-1, 1), m},
		{"add past", addSat(m-1, 2), m},
		{"add zero", addSat(0, 0), 0},
		{"add", addSat(2, 3), 5},
		{"mul fits", mulSat(m/2, 2), m - 1},
		{"mul past", mulSat(m/2+1, 2), m},
		{"mul zero", mulSat(0, m), 0},
		{"mul by zero", mulSat(m, 0), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}
