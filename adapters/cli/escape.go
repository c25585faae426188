package cli

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escape makes text from inputs or from the cluster safe to print for
// people (SPEC section 11): every control character (C0, DEL, C1, newline
// and tab included), every character that reorders or breaks lines
// (U+2028, U+2029, the bidirectional controls) and every byte that is not
// UTF-8 is written as a Go escape, so that a pool name or a tenant's
// annotation cannot move the cursor, erase lines of a report or start a
// line of its own. For example escape("demo\x1b[2K") is `demo\x1b[2K` and
// escape("a\nb") is `a\nb`; text without such characters comes back as it
// is. Newlines and tabs the output puts itself are in the writers' formats,
// never in what escape is given.
func escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unsafeRune(r, size) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r, size):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r, of size bytes in the text, is escaped.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case unicode.IsControl(r):
		return true
	case r == '\u2028', r == '\u2029': // line and paragraph separators
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e', r == '\u200f', r == '\u061c':
		return true // bidirectional controls
	}
	return false
}

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
