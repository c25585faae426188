package charttext

import (
	"strconv"
	"testing"
)

// quotedCases are values on both sides of appendQuoted's plain path:
// printable ASCII as it is, and what %q escapes (a quote, a backslash, a
// control character, DEL, a multibyte rune, an invalid byte).
var quotedCases = []string{"", "20Gi", "replicated", " ~!#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}", `a"b`, `a\b`, "a\tb", "a\x7fb", "Grüße", "\xff", "\u2028"}

// FuzzQuoted: the entry's values are written as Helm's quote writes them
// (Go's %q), whatever the value, after what precedes them.
func FuzzQuoted(f *testing.F) {
	for _, s := range quotedCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := string(appendQuoted([]byte("storage: "), s))
		if want := "storage: " + strconv.Quote(s); got != want {
			t.Fatalf("appendQuoted(%q) wrote %q, want %q", s, got, want)
		}
	})
}
