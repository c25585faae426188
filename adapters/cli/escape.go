package cli

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	textescape "github.com/cozystack/kubernetes-worker-image/internal/escape"
)

// escape makes text from inputs or from the cluster safe to print for
// people: control characters, line separators, bidirectional controls and
// bytes that are not UTF-8 are written as Go escapes (escape.String, which
// the webhook's answers use too), so that a pool name or a tenant's
// annotation cannot move the cursor, erase lines of a report or start a
// line of its own. For example escape("demo\x1b[2K") is `demo\x1b[2K`.
// Newlines and tabs the output puts itself are in the writers' formats,
// never in what escape is given.
func escape(s string) string { return textescape.String(s) }

// printf is fmt.Fprintf for text people read: every argument of a string
// kind (a name, a message, an error's text, a guard.Reason) is escaped
// first, so the only newlines and tabs printed are those of format. Every
// human-readable writer of the command writes through it.
func printf(w io.Writer, format string, args ...any) {
	for i, v := range args {
		switch x := v.(type) {
		case nil:
		case error:
			args[i] = escape(x.Error())
		case fmt.Stringer:
			args[i] = escape(x.String())
		default:
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
				args[i] = escape(rv.String())
			}
		}
	}
	fmt.Fprintf(w, format, args...)
}

// sprintf is printf into a string.
func sprintf(format string, args ...any) string {
	var b strings.Builder
	printf(&b, format, args...)
	return b.String()
}
