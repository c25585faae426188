// Package escape makes text from inputs or from the cluster safe to show
// to people: one implementation for every human-readable output, the
// command's reports and the webhook's denials and warnings alike.
package escape

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String writes every control character (C0, DEL, C1, newline and tab
// included), every character that reorders, hides or breaks lines (U+2028,
// U+2029, the bidirectional marks U+200E, U+200F and U+061C, the embeddings,
// overrides and isolates U+202A–U+202E and U+2066–U+2069) and every byte
// that is not UTF-8 as a Go escape, so that a pool name or a tenant's
// annotation cannot move the cursor, erase lines of a report, start a line
// of its own or show its text in another order. For example
// String("demo\x1b[2K") is `demo\x1b[2K`, String("a\nb") is `a\nb` and
// String("abc\u202edef") is `abc\u202edef`; text without such characters
// comes back as it is, without a copy.
func String(s string) string {
	i := 0
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			if s[i] < 0x20 || s[i] == 0x7f {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if escaped(r, size) {
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
		text, size := unit(s[i:])
		b.WriteString(text)
		i += size
	}
	return b.String()
}

// escaped reports whether r, decoded from size bytes of a text, is one
// String escapes: a control character, a line or paragraph separator, a
// bidirectional control, or (RuneError of one byte) a byte that is not
// UTF-8.
func escaped(r rune, size int) bool {
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

// Truncate is String(s) cut to at most max bytes (max below 64 is taken
// as 64), on a character and escape boundary, and ending in
// "… (N more bytes)" when cut, N counting the bytes of s left out. For
// example Truncate(strings.Repeat("7", 1000), 64) keeps the first 42
// digits and says "… (958 more bytes)". It bounds the size of one text in
// an answer whatever the input, reading at most max bytes of s.
func Truncate(s string, max int) string {
	max = maxInt(max, 64)
	if n, whole := escapedLen(s, max); whole && n <= max {
		return String(s)
	}
	keep := max - len(" … ( more bytes)") - len(strconv.Itoa(len(s)))
	var b strings.Builder
	b.Grow(max)
	i := 0
	for i < len(s) {
		text, size := unit(s[i:])
		if b.Len()+len(text) > keep {
			break
		}
		b.WriteString(text)
		i += size
	}
	b.WriteString(" … (")
	b.WriteString(strconv.Itoa(len(s) - i))
	b.WriteString(" more bytes)")
	return b.String()
}

// escapedLen is the length of String(s), counted up to past max: whole
// is false when s was not read to its end.
func escapedLen(s string, max int) (n int, whole bool) {
	for i := 0; i < len(s); {
		if n > max {
			return n, false
		}
		text, size := unit(s[i:])
		n += len(text)
		i += size
	}
	return n, true
}

// unit is the first character of s as String writes it, and how many
// bytes of s it stands for.
func unit(s string) (text string, size int) {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return `\x` + pad(uint32(s[0]), 2), size
	case r == '\n':
		return `\n`, size
	case r == '\t':
		return `\t`, size
	case r == '\r':
		return `\r`, size
	case escaped(r, size) && r < 0x100:
		return `\x` + pad(uint32(r), 2), size
	case escaped(r, size):
		return `\u` + pad(uint32(r), 4), size
	}
	return s[:size], size
}

func pad(v uint32, width int) string {
	digits := strconv.FormatUint(uint64(v), 16)
	return strings.Repeat("0", maxInt(0, width-len(digits))) + digits
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
