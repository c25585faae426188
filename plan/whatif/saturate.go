package whatif

import "math"

// addSat is a+b of two byte counts (neither negative), or math.MaxInt64
// where the sum does not fit: absurd replica counts must not wrap to a
// negative transfer.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// mulSat is a*b of two counts (neither negative), or math.MaxInt64 where
// the product does not fit.
func mulSat(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
