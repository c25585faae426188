package plantest

import "pgregory.net/rapid"

// pick draws an index i with probability weights[i] / sum(weights). Index 0
// is what a failing draw shrinks towards, so it is the plainest choice.
func pick(t *rapid.T, label string, weights ...int) int {
	sum := 0
	for _, w := range weights {
		sum += w
	}
	n := rapid.IntRange(0, sum-1).Draw(t, label)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// chance draws true with probability 1/n; false is what a failing draw
// shrinks towards.
func chance(t *rapid.T, label string, n int) bool {
	return rapid.IntRange(0, n-1).Draw(t, label) == n-1
}
