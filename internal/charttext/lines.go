package charttext

import (
	"strconv"
	"strings"
)

// Lines builds indented YAML text: every line starts with its
// indentation and ends in "\n".
type Lines struct {
	strings.Builder
}

// spaces is enough indentation for any line; longer pads are written in
// pieces.
const spaces = "                                                                "

// appendIndent appends n spaces (none for n ≤ 0).
func appendIndent(buf []byte, n int) []byte {
	for n > len(spaces) {
		buf = append(buf, spaces...)
		n -= len(spaces)
	}
	return append(buf, spaces[:max(n, 0)]...)
}

// Line writes s at indent.
func (w *Lines) Line(indent int, s string) {
	var pad [len(spaces)]byte
	w.Write(appendIndent(pad[:0], indent))
	w.WriteString(s)
	w.WriteByte('\n')
}

// appendQuoted appends s as Helm's quote writes it (sprig's: Go's %q).
func appendQuoted(buf []byte, s string) []byte {
	if plain(s) {
		// What %q writes of printable ASCII without a quote or a
		// backslash: the value between quotes.
		buf = append(buf, '"')
		buf = append(buf, s...)
		return append(buf, '"')
	}
	return strconv.AppendQuote(buf, s)
}

// plain reports whether s is printable ASCII without '"' or '\\', which
// strconv.Quote writes as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
