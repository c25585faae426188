package plantest

import (
	"strconv"

	"pgregory.net/rapid"
)

const (
	ki = int64(1) << 10
	mi = int64(1) << 20
	gi = int64(1) << 30
)

// sizes are the disk and golden sizes a draw picks from: few enough that a
// pool's disk often equals its golden's size exactly, and spans both sides
// of it.
var sizes = []int64{4 * gi, 5 * gi, 6 * gi, 6*gi + 512*mi, 7 * gi, 8 * gi, 10 * gi, 20 * gi}

// sizeBytes draws a size in bytes: one of a few round sizes between 4Gi and
// 20Gi, or one byte less than one of them (the neighbour of "equal").
func sizeBytes() *rapid.Generator[int64] {
	return rapid.Custom(func(t *rapid.T) int64 {
		b := rapid.SampledFrom(sizes).Draw(t, "bytes")
		if rapid.IntRange(0, 5).Draw(t, "oneByteLess") == 0 {
			b--
		}
		return b
	})
}

// size draws a positive quantity spelled in any unit Kubernetes reads:
// the same value comes as 6Gi, 6144Mi, 6291456Ki, 6442450944 or
// 6442450944e0.
func size() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		return spelling(sizeBytes().Draw(t, "size")).Draw(t, "spelling")
	})
}

// spelling draws one of Spellings(bytes).
func spelling(bytes int64) *rapid.Generator[string] {
	return rapid.SampledFrom(Spellings(bytes))
}

// Spellings lists the ways to write exactly b bytes as a quantity: the plain
// number, with an exponent, every binary (Ki, Mi, Gi, Ti), decimal (k, M,
// G) and exponent form that divides it, and a half Gi (6.5Gi) where one
// fits. Every spelling parses to a quantity equal to b; they are compared
// as quantities, never as strings. For example Spellings(6 << 30) holds
// 6Gi, 6144Mi, 6291456Ki and 6442450944.
func Spellings(b int64) []string {
	out := []string{strconv.FormatInt(b, 10), strconv.FormatInt(b, 10) + "e0"}
	for _, u := range []struct {
		suffix string
		unit   int64
	}{{"Ki", ki}, {"Mi", mi}, {"Gi", gi}, {"Ti", 1 << 40}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}} {
		if b%u.unit == 0 {
			out = append(out, strconv.FormatInt(b/u.unit, 10)+u.suffix)
		}
	}
	if b%(gi/2) == 0 && b%gi != 0 {
		out = append(out, strconv.FormatInt(b/gi, 10)+".5Gi")
	}
	for e, p := 3, int64(1e3); e <= 9; e, p = e+3, p*1e3 {
		if b%p == 0 {
			out = append(out, strconv.FormatInt(b/p, 10)+"e"+strconv.Itoa(e))
		}
	}
	return out
}

// malformedSize draws a size the planner refuses: off the values schema's
// quantity pattern ("20 Gi", "twenty"), InvalidValue on either path, as
// Helm fails the release on the schema; zero or negative, InvalidQuantity
// on the clone path, and on the HTTP path a warning, the size rendered as
// given. It is never "", which in a PoolSpec means the chart's 20Gi.
func malformedSize() *rapid.Generator[string] {
	return rapid.SampledFrom([]string{"20 Gi", "20GiB", "20gi", "twenty", "1.5.5Gi", "Gi", "-1Gi", "0", "0Gi", "-6442450944", "+-1", "20Gi\n"})
}
