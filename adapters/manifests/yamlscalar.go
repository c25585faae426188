package manifests

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// The scalars of the YAML subset kubectl prints: plain (and folded over
// several lines), single- and double-quoted, literal blocks, and how YAML
// 1.1 resolves a plain one.

// plainJSON is how JSON writes a plain scalar of each kind but a string
// (an integer is written as it is).
var plainJSON = [...]string{plainNull: "null", plainTrue: "true", plainFalse: "false", plainInt: ""}

// trimComment drops a comment (" #...") and the spaces before it.
func trimComment(l []byte) []byte {
	for i := 1; i < len(l); i++ {
		if l[i] == '#' && l[i-1] == ' ' {
			l = l[:i]
			break
		}
	}
	return bytes.TrimRight(l, " ")
}

// plainStart reports whether l can start a plain scalar the transcoder
// reads: not an indicator, not a space.
func plainStart(l []byte) bool {
	switch l[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	}
	return true
}

// plain reads a plain scalar: the rest of the line, and the lines below
// it indented deeper than its collection, each joined by a space.
func (t *transcoder) plain(rest []byte, indent int) ([]byte, bool) {
	if !plainStart(rest) {
		return nil, false
	}
	s, ok := plainLine(rest)
	if !ok {
		return nil, false
	}
	t.advance()
	if t.eof || t.cur.indent <= indent || len(t.text()) == 0 {
		return s, true
	}
	t.buf = append(t.buf[:0], s...)
	for !t.eof && t.cur.indent > indent {
		l := t.text()
		if len(l) == 0 || !plainStart(l) {
			return nil, false // a folded line break, a comment, an indicator
		}
		more, ok := plainLine(l)
		if !ok {
			return nil, false
		}
		t.buf = append(t.buf, ' ')
		t.buf = append(t.buf, more...)
		t.advance()
	}
	return t.buf, true
}

// plainLine is one line of a plain scalar, which must not hold a ": ", nor
// a comment, nor end in a colon.
func plainLine(l []byte) ([]byte, bool) {
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ':':
			if i+1 == len(l) || l[i+1] == ' ' {
				return nil, false
			}
		case '#':
			if i > 0 && l[i-1] == ' ' {
				return nil, false
			}
		}
	}
	return bytes.TrimRight(l, " "), true
}

// quotedLine reads a quoted scalar that closes on its line: its value and
// the length of its text with the quotes.
func quotedLine(l []byte) ([]byte, int, bool) {
	q := l[0]
	var out []byte
	for i := 1; i < len(l); i++ {
		c := l[i]
		switch {
		case c == q && q == '\'':
			if i+1 < len(l) && l[i+1] == '\'' {
				out = append(out, '\'')
				i++
				continue
			}
			return out, i + 1, true
		case c == q:
			return out, i + 1, true
		case c == '\\' && q == '"':
			r, n, ok := escape(l[i+1:])
			if !ok {
				return nil, 0, false
			}
			out = utf8.AppendRune(out, r)
			i += n
		default:
			out = append(out, c)
		}
	}
	return nil, 0, false
}

// quoted reads a quoted scalar that may go on over the lines below,
// folded as YAML folds them: a line break between two lines is a space,
// the spaces around it go, and "\" before it in double quotes joins the
// lines.
func (t *transcoder) quoted(rest []byte, indent int) ([]byte, bool) {
	q := rest[0]
	t.buf = t.buf[:0]
	l := rest[1:]
	joined := false // the previous line ended in an escaped line break
	for lines := 0; ; lines++ {
		if lines > 0 {
			l = bytes.TrimLeft(l, " ")
			if len(l) == 0 || t.cur.indent <= indent {
				return nil, false // an empty line folds to a newline; kubectl does not print one
			}
			if !joined {
				t.buf = append(t.buf, ' ')
			}
		}
		joined = false
		keep := len(t.buf) // the value up to its last character that is not a plain space
		closed := -1
		for i := 0; i < len(l) && closed < 0; i++ {
			c := l[i]
			switch {
			case c == q && q == '\'' && i+1 < len(l) && l[i+1] == '\'':
				t.buf = append(t.buf, '\'')
				i++
			case c == q:
				closed = i + 1
				continue
			case c == '\\' && q == '"' && i+1 == len(l):
				joined = true
				continue
			case c == '\\' && q == '"':
				r, n, ok := escape(l[i+1:])
				if !ok {
					return nil, false
				}
				t.buf = utf8.AppendRune(t.buf, r)
				i += n
			default:
				t.buf = append(t.buf, c)
				if c == ' ' {
					continue
				}
			}
			keep = len(t.buf)
		}
		if closed >= 0 {
			if after := l[closed:]; len(bytes.TrimLeft(after, " ")) != 0 && (after[0] != ' ' || bytes.TrimLeft(after, " ")[0] != '#') {
				return nil, false // only a comment may follow
			}
			t.advance()
			return t.buf, true
		}
		if !joined {
			t.buf = t.buf[:keep]
		}
		t.advance()
		if t.eof {
			return nil, false
		}
		l = t.text()
	}
}

// escape reads the escape after a backslash in double quotes, as yaml.v2
// reads it: the character and how many bytes it took. (YAML 1.1 has no
// "\/", which JSON has.)
func escape(l []byte) (rune, int, bool) {
	if len(l) == 0 {
		return 0, 0, false
	}
	switch l[0] {
	case '"', '\\', '\'':
		return rune(l[0]), 1, true
	case 'n':
		return '\n', 1, true
	case 't':
		return '\t', 1, true
	case 'r':
		return '\r', 1, true
	case 'b':
		return '\b', 1, true
	case 'f':
		return '\f', 1, true
	case '0':
		return 0, 1, true
	case 'a':
		return 7, 1, true
	case 'v':
		return 0x0b, 1, true
	case 'e':
		return 0x1b, 1, true
	case ' ':
		return ' ', 1, true
	case 'N':
		return 0x85, 1, true
	case '_':
		return 0xa0, 1, true
	case 'L':
		return 0x2028, 1, true
	case 'P':
		return 0x2029, 1, true
	case 'x':
		return hexEscape(l, 2)
	case 'u':
		return hexEscape(l, 4)
	case 'U':
		return hexEscape(l, 8)
	}
	return 0, 0, false
}

// hexEscape reads the n hexadecimal digits after \x, \u or \U.
func hexEscape(l []byte, n int) (rune, int, bool) {
	if len(l) < n+1 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(string(l[1:n+1]), 16, 32)
	if err != nil || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff {
		return 0, 0, false
	}
	return rune(v), n + 1, true
}

// literal reads a literal block scalar ("|", "|-", "|+", with an
// indentation indicator or not) of a node in the collection at indent.
func (t *transcoder) literal(rest []byte, indent int) ([]byte, bool) {
	chomp, explicit := byte(0), 0
	for _, c := range bytes.TrimRight(rest[1:], " ") {
		switch {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && explicit == 0:
			explicit = int(c - '0')
		default:
			return nil, false // a comment, or anything else, after the indicator
		}
	}
	t.advance()
	at := indent + explicit
	t.buf = t.buf[:0]
	breaks := 0 // line breaks not yet written
	content := false
	for !t.eof {
		l := t.src[t.cur.start-t.cur.indent : t.cur.end]
		if len(l) == 0 {
			breaks++
			t.advance()
			continue
		}
		if t.cur.start == t.cur.end {
			return nil, false // a line of spaces only: YAML's rules for it are subtle
		}
		if !content && explicit == 0 {
			if t.cur.indent <= indent {
				break
			}
			at = t.cur.indent
		}
		if t.cur.indent < at {
			break
		}
		if content || breaks > 0 {
			for range breaks + b2i(content) {
				t.buf = append(t.buf, '\n')
			}
		}
		breaks = 0
		content = true
		t.buf = append(t.buf, l[at:]...)
		t.advance()
	}
	if !content {
		return nil, false
	}
	switch chomp {
	case 0:
		t.buf = append(t.buf, '\n')
	case '+':
		for range breaks + 1 {
			t.buf = append(t.buf, '\n')
		}
	}
	return t.buf, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendString appends s as a JSON string.
func appendString(out, s []byte) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&15])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

const hexDigit = "0123456789abcdef"

// How YAML 1.1, as go.yaml.in/yaml/v2 resolves it, reads a plain scalar.
type plainKind uint8

const (
	plainString plainKind = iota
	plainNull
	plainTrue
	plainFalse
	plainInt   // a decimal integer that JSON prints as written
	plainOther // a float, a timestamp, another form of integer, a merge key
)

// resolvePlain says what a plain scalar is, as yaml.v2's resolve does,
// folding the forms JSON would print otherwise into plainOther.
func resolvePlain(s []byte) plainKind {
	if len(s) == 0 {
		return plainNull
	}
	switch string(s) {
	case "~", "null", "Null", "NULL":
		return plainNull
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return plainTrue
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return plainFalse
	case "<<":
		return plainOther
	}
	switch c := s[0]; {
	case c == '.':
		return plainOther // .inf, .nan, or a float like .5
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
	default:
		return plainString
	}
	if decimal(s) {
		return plainInt
	}
	// Anything strconv or a timestamp could read is left to yaml.v2.
	if mayBeNumber(s) {
		return plainOther
	}
	return plainString
}

// decimal reports whether s is an integer JSON prints as written: no
// sign but "-", no leading zero, no "-0", within int64.
func decimal(s []byte) bool {
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || (d[0] == '0' && (len(d) > 1 || len(s) > 1)) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mayBeNumber reports whether yaml.v2 could read s (starting with a digit
// or a sign) as other than a string: it tries the same readings, an
// integer in any base with underscores dropped, a float of YAML's form, a
// binary integer, and a timestamp (any four digits and a dash, to err on
// the side of declining).
func mayBeNumber(s []byte) bool {
	binary := bytes.HasPrefix(s, []byte("0b")) || bytes.HasPrefix(s, []byte("-0b"))
	for i, c := range s {
		// A dash past the sign, not in an exponent nor after 0b (which
		// yaml.v2 reads with a sign), makes no number (a uid, a name): no
		// need to ask strconv.
		if c == '-' && i > 0 && s[i-1] != 'e' && s[i-1] != 'E' && !binary {
			return len(s) >= 5 && s[4] == '-' && isDigits(s[:4])
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || bytes.IndexByte([]byte("xXoO_+-."), c) >= 0) {
			return len(s) >= 5 && s[4] == '-' && isDigits(s[:4])
		}
	}
	plain := s
	if bytes.IndexByte(s, '_') >= 0 {
		plain = bytes.ReplaceAll(s, []byte("_"), nil)
	}
	if _, err := strconv.ParseInt(string(plain), 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(string(plain), 0, 64); err == nil {
		return true
	}
	if yamlFloat(plain) {
		return true
	}
	if b, ok := bytes.CutPrefix(plain, []byte("0b")); ok {
		if _, err := strconv.ParseInt(string(b), 2, 64); err == nil {
			return true // a sign after 0b too, as yaml.v2 reads it
		}
		if _, err := strconv.ParseUint(string(b), 2, 64); err == nil {
			return true
		}
	}
	if b, ok := bytes.CutPrefix(plain, []byte("-0b")); ok {
		if _, err := strconv.ParseInt("-"+string(b), 2, 64); err == nil {
			return true
		}
	}
	return len(s) >= 5 && s[4] == '-' && isDigits(s[:4])
}

// yamlFloat matches yaml.v2's float form,
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func yamlFloat(s []byte) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
