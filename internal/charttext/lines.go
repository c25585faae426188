package charttext

import (
	"strconv"
	"strings"
)

// Lines builds indented YAML text: every line starts with Pad spaces and
// its own indentation, and ends in "\n".
type Lines struct {
	strings.Builder
	Pad int
}

// spaces is enough indentation for any line; longer pads are written in
// pieces.
const spaces = "                                                                "

func (w *Lines) indent(n int) {
	for n > len(spaces) {
		w.WriteString(spaces)
		n -= len(spaces)
	}
	w.WriteString(spaces[:n])
}

// Line writes s at indent.
func (w *Lines) Line(indent int, s string) {
	w.indent(w.Pad + indent)
	w.WriteString(s)
	w.WriteByte('\n')
}

// Field writes key (with its ": ") and value as given, as the chart's
// {{ value }} prints a string.
func (w *Lines) Field(indent int, key, value string) {
	w.indent(w.Pad + indent)
	w.WriteString(key)
	w.WriteString(value)
	w.WriteByte('\n')
}

// Quoted writes key and value through Helm's quote (sprig's: Go's %q).
func (w *Lines) Quoted(indent int, key, value string) {
	w.indent(w.Pad + indent)
	w.WriteString(key)
	var buf [160]byte
	w.Write(appendQuoted(buf[:0], value))
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
