// Package saturate adds and multiplies counts (workers, imports, bytes)
// that saturate rather than overflow: absurd replica counts must not wrap
// to a negative saving or transfer.
package saturate

import "unsafe"

// Integer is a count's type.
type Integer interface{ ~int | ~int64 }

// Add is a+b of two counts (neither negative), or T's largest value where
// the sum does not fit.
func Add[T Integer](a, b T) T {
	if a > Max[T]()-b {
		return Max[T]()
	}
	return a + b
}

// Mul is a*b of two counts (neither negative), or T's largest value where
// the product does not fit.
func Mul[T Integer](a, b T) T {
	if a != 0 && b > Max[T]()/a {
		return Max[T]()
	}
	return a * b
}

// Max is T's largest value.
func Max[T Integer]() T {
	var zero T
	return T(1)<<(8*unsafe.Sizeof(zero)-1) - 1
}
