package escape

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"plain text comes back as it is":    {"demo-md0 ünïcödé 日本", "demo-md0 ünïcödé 日本"},
		"a terminal escape":                 {"demo\x1b[2K", `demo\x1b[2K`},
		"newline, tab, carriage return":     {"a\nb\tc\rd", `a\nb\tc\rd`},
		"DEL and a C1 control":              {"a\x7fb\u0085c", `a\x7fb\x85c`},
		"line and paragraph separators":     {"a\u2028b\u2029c", `a\u2028b\u2029c`},
		"a right-to-left override":          {"abc\u202edef", `abc\u202edef`},
		"every embedding and override":      {"\u202a\u202b\u202c\u202d\u202e", `\u202a\u202b\u202c\u202d\u202e`},
		"the isolates":                      {"\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		"the marks":                         {"\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		"neighbours of the ranges are kept": {"\u2027\u202f\u2065\u206a\u200d", "\u2027\u202f\u2065\u206a\u200d"},
		"a byte that is not UTF-8":          {"a\xffb", `a\xffb`},
		"a backslash is no escape":          {`a\nb`, `a\nb`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, String(tc.in))
		})
	}
}

func TestTruncate(t *testing.T) {
	digits := strings.Repeat("7", 1000)
	got := Truncate(digits, 64)
	assert.LessOrEqual(t, len(got), 64)
	assert.True(t, strings.HasSuffix(got, " … (958 more bytes)"), got)
	assert.Equal(t, strings.Repeat("7", 42)+" … (958 more bytes)", got)

	assert.Equal(t, "short\\n", Truncate("short\n", 64), "a text within the bound is only escaped")
	exact := strings.Repeat("a", 64)
	assert.Equal(t, exact, Truncate(exact, 64), "neighbour: exactly the bound is kept whole")
	assert.LessOrEqual(t, len(Truncate(exact+"a", 64)), 64, "one byte over is cut")
	assert.LessOrEqual(t, len(Truncate(digits, 10)), 64, "a bound below 64 is 64")

	escapes := strings.Repeat("\u202e", 100)
	got = Truncate(escapes, 100)
	assert.LessOrEqual(t, len(got), 100)
	assert.True(t, strings.HasPrefix(got, `\u202e\u202e`), got)
	assert.NotContains(t, got, "\u202e")
	head, _, _ := strings.Cut(got, " … ")
	assert.Equal(t, 0, len(head)%6, "cut on an escape's boundary: %q", head)
}

// What String writes holds no character it escapes, reads back to its
// input where nothing was escaped, and is escaped again as it is; what
// Truncate writes is within its bound.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "demo", "a\nb", "\x1b[2K", "\u202e", "\xff\xfe", `\u202e`, "日本\u2028"} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		e := String(s)
		for i, r := range e {
			if escaped(r, utf8.RuneLen(r)) || r == utf8.RuneError && !utf8.ValidString(e[i:]) {
				t.Fatalf("String(%q) = %q holds %U", s, e, r)
			}
		}
		if String(e) != e {
			t.Fatalf("String(%q) = %q is escaped again", s, e)
		}
		if max > 1<<16 || max < -1<<16 {
			max %= 1 << 16
		}
		tr := Truncate(s, max)
		if bound := maxInt(max, 64); len(tr) > bound {
			t.Fatalf("Truncate(%q, %d) = %q is %d bytes", s, max, tr, len(tr))
		}
		if !strings.Contains(tr, " … (") && tr != e {
			t.Fatalf("Truncate(%q, %d) = %q is neither whole nor cut", s, max, tr)
		}
	})
}
