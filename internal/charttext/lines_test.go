package charttext_test

import (
	"strconv"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
)

// quotedCases are values on both sides of Quoted's plain path: printable
// ASCII as it is, and what %q escapes (a quote, a backslash, a control
// character, DEL, a multibyte rune, an invalid byte).
var quotedCases = []string{"", "20Gi", "replicated", " ~!#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}", `a"b`, `a\b`, "a\tb", "a\x7fb", "Grüße", "\xff", "\u2028"}

// FuzzQuoted: Quoted writes what Helm's quote writes (Go's %q), whatever
// the value.
func FuzzQuoted(f *testing.F) {
	for _, s := range quotedCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := charttext.Lines{Pad: 2}
		w.Quoted(2, "storage: ", s)
		if want := "    storage: " + strconv.Quote(s) + "\n"; w.String() != want {
			t.Fatalf("Quoted(%q) wrote %q, want %q", s, w.String(), want)
		}
	})
}
