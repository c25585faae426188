package manifests

import (
	"bytes"
	"unicode/utf8"
)

// The YAML of a state file is transcoded to JSON by hand: kubectl prints
// a narrow, regular subset of YAML (block mappings and sequences, plain,
// quoted and literal scalars, the empty flow collections), and a parser of
// only that subset runs at several times the speed of a general one.
//
// The transcoder is exact or it declines: for anything outside the subset
// (anchors, tags, flow collections with content, tabs, a float, a
// timestamp, a key that is not a string...) it reports false and the
// caller falls back to the general decoder, whose reading (YAML 1.1, as
// sigs.k8s.io/yaml.YAMLToJSONStrict resolves it) is the reference. What it
// accepts, it turns into the JSON YAMLToJSONStrict would give, up to key
// order and spacing. A key repeated in its mapping, which
// YAMLToJSONStrict refuses, it reads on past and says where (dup), so that
// the refusal needs no second reading.

// identity is what an object says of itself, read on the way: apiVersion
// and kind at the top, name and namespace in metadata. The has bits say
// which were present (as strings).
type identity struct {
	apiVersion, kind, name, namespace string
	has                               uint8
}

const (
	hasAPIVersion uint8 = 1 << iota
	hasKind
	hasItems // a top-level "items" key: the object is a List
)

// yline is one line of the input: [start, end) without its newline, and
// its indentation in spaces. A compact mapping in a sequence entry moves
// start and indent past the "- ".
type yline struct {
	start, end, indent int
}

type transcoder struct {
	src  []byte
	next int // offset of the line after cur
	cur  yline
	eof  bool
	out  []byte
	id   identity
	fail bool
	keys []seenKey // the keys of the mappings being read, for repeats
	buf  []byte    // a scalar being unfolded
	// dup is the first key repeated in its mapping, its lines counted
	// from base, the start of the line the object starts on.
	dup  *duplicateKeyError
	base int
}

// seenKey is a key of a mapping being read, and where its line starts.
type seenKey struct {
	name []byte
	at   int
}

// where a mapping is, for identity: the object, its metadata, elsewhere.
type where uint8

const (
	inObject where = iota
	inMetadata
	elsewhere
)

// transcodeEntry transcodes one entry of a block sequence at column 0 (an
// item of a List as kubectl prints it, "- " and the lines below it) into
// JSON appended to dst. It declines an entry that repeats a key.
func transcodeEntry(dst, src []byte) ([]byte, identity, bool) {
	var t transcoder
	out, id, ok := t.transcodeEntry(dst, src)
	return out, id, ok && t.dup == nil
}

// transcodeEntry is transcodeEntry with t's scratch space; an entry that
// repeats a key it reads whole, and says so in t.dup.
func (t *transcoder) transcodeEntry(dst, src []byte) ([]byte, identity, bool) {
	t.reset(src, dst)
	if !printable(src) || len(src) > 0 && src[len(src)-1] != '\n' {
		// A last line without its line break ends a block scalar
		// otherwise; YAMLReader ends every line, and so does the splitter.
		return dst, identity{}, false
	}
	t.advance()
	t.skipBlank()
	if t.eof || t.cur.indent != 0 || !t.isEntry() {
		return dst, identity{}, false
	}
	t.base = t.cur.start
	t.entry(0, inObject)
	t.skipBlank()
	if t.fail || !t.eof {
		return dst, identity{}, false
	}
	return t.out, t.id, true
}

// transcodeDocument transcodes a YAML document holding a mapping at column
// 0 (a separator line may open it) into JSON appended to dst. It declines
// a document that repeats a key.
func transcodeDocument(dst, src []byte) ([]byte, identity, bool) {
	var t transcoder
	out, id, ok := t.transcodeDocument(dst, src)
	return out, id, ok && t.dup == nil
}

// transcodeDocument is transcodeDocument with t's scratch space; a
// document that repeats a key it reads whole, and says so in t.dup.
func (t *transcoder) transcodeDocument(dst, src []byte) ([]byte, identity, bool) {
	t.reset(src, dst)
	if !printable(src) || len(src) > 0 && src[len(src)-1] != '\n' {
		// A last line without its line break ends a block scalar
		// otherwise; YAMLReader ends every line, and so does the splitter.
		return dst, identity{}, false
	}
	t.advance()
	if l := t.text(); bytes.HasPrefix(l, []byte("---")) {
		t.advance() // the separator YAMLReader leaves in a first document
	}
	t.skipBlank()
	if t.eof || t.cur.indent != 0 || t.isEntry() {
		return dst, identity{}, false
	}
	t.base = t.cur.start
	t.mapping(0, inObject)
	t.skipBlank()
	if t.fail || !t.eof {
		return dst, identity{}, false
	}
	return t.out, t.id, true
}

// reset readies t for src, keeping its scratch space.
func (t *transcoder) reset(src, dst []byte) {
	*t = transcoder{src: src, out: dst, keys: t.keys[:0], buf: t.buf[:0]}
}

// printable reports whether every character of src is one the YAML reader
// accepts and the transcoder reads the same way: no tab, carriage return,
// control character, byte order mark or Unicode line break (YAML 1.1
// folds NEL, LS and PS), and valid UTF-8.
func printable(src []byte) bool {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError || r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff ||
			(r >= 0xd800 && r <= 0xdfff) || r > 0xfffd && r < 0x10000 {
			return false
		}
		i += n
	}
	return true
}

// advance moves to the next line.
func (t *transcoder) advance() {
	if t.next >= len(t.src) {
		t.eof = true
		t.cur = yline{start: len(t.src), end: len(t.src)}
		return
	}
	start := t.next
	end := bytes.IndexByte(t.src[start:], '\n')
	if end < 0 {
		end = len(t.src)
		t.next = end
	} else {
		end += start
		t.next = end + 1
	}
	indent := 0
	for start+indent < end && t.src[start+indent] == ' ' {
		indent++
	}
	t.cur = yline{start: start + indent, end: end, indent: indent}
}

// text is the current line past its indentation.
func (t *transcoder) text() []byte { return t.src[t.cur.start:t.cur.end] }

// skipBlank moves past empty lines and comment lines.
func (t *transcoder) skipBlank() {
	for !t.eof {
		if l := t.text(); len(l) != 0 && l[0] != '#' {
			return
		}
		t.advance()
	}
}

// isEntry reports whether the current line opens a sequence entry.
func (t *transcoder) isEntry() bool {
	l := t.text()
	return len(l) > 0 && l[0] == '-' && (len(l) == 1 || l[1] == ' ')
}

// mapping reads a block mapping whose keys are at indent.
func (t *transcoder) mapping(indent int, at where) {
	t.out = append(t.out, '{')
	mark := len(t.keys)
	for first := true; !t.fail && !t.eof && t.cur.indent >= indent; first = false {
		if t.cur.indent > indent || t.isEntry() {
			t.fail = true
			break
		}
		key, rest, ok := t.key()
		if !ok {
			t.fail = true
			break
		}
		if t.dup == nil {
			for _, k := range t.keys[mark:] {
				if bytes.Equal(k.name, key) {
					t.repeated(key, k.at)
				}
			}
		}
		t.keys = append(t.keys, seenKey{key, t.cur.start})
		if !first {
			t.out = append(t.out, ',')
		}
		t.out = appendString(t.out, key)
		t.out = append(t.out, ':')
		var ident *string
		var bit uint8
		child := elsewhere
		switch {
		case at == inObject && string(key) == "apiVersion":
			ident, bit = &t.id.apiVersion, hasAPIVersion
		case at == inObject && string(key) == "kind":
			ident, bit = &t.id.kind, hasKind
		case at == inObject && string(key) == "items":
			t.id.has |= hasItems
		case at == inObject && string(key) == "metadata":
			child = inMetadata
		case at == inMetadata && string(key) == "name":
			ident = &t.id.name
		case at == inMetadata && string(key) == "namespace":
			ident = &t.id.namespace
		}
		t.value(rest, indent, child, ident)
		t.id.has |= bit
		t.skipBlank()
	}
	t.keys = t.keys[:mark]
	t.out = append(t.out, '}')
}

// repeated notes the key on the current line as repeating the one whose
// line starts at first.
func (t *transcoder) repeated(key []byte, first int) {
	line := func(at int) int { return 1 + bytes.Count(t.src[t.base:at], []byte("\n")) }
	t.dup = &duplicateKeyError{key: string(key), first: line(first), line: line(t.cur.start)}
}

// sequence reads a block sequence whose entries are at indent.
func (t *transcoder) sequence(indent int) {
	t.out = append(t.out, '[')
	for first := true; !t.fail && !t.eof && t.cur.indent == indent && t.isEntry(); first = false {
		if !first {
			t.out = append(t.out, ',')
		}
		t.entry(indent, elsewhere)
		t.skipBlank()
	}
	if !t.fail && !t.eof && t.cur.indent > indent {
		t.fail = true
	}
	t.out = append(t.out, ']')
}

// entry reads the sequence entry on the current line, "- " at indent.
func (t *transcoder) entry(indent int, at where) {
	l := t.text()
	rest := bytes.TrimLeft(l[1:], " ")
	switch {
	case len(rest) == 0 || rest[0] == '#':
		t.fail = true // null, or a node on the lines below: kubectl prints neither
	case rest[0] == '-':
		t.fail = true // a compact nested sequence
	case t.keyLine(rest):
		// A compact mapping: its keys are at the column of the first.
		col := t.cur.end - len(l) + (len(l) - len(rest))
		t.cur.indent += col - t.cur.start
		t.cur.start = col
		t.mapping(t.cur.indent, at)
	default:
		if at == inObject {
			t.fail = true // an item that is not a mapping
			return
		}
		t.inline(rest, indent, nil)
	}
}

// keyLine reports whether l starts with a mapping key ("key:" followed by
// a space or the end of the line).
func (t *transcoder) keyLine(l []byte) bool {
	switch l[0] {
	case '"', '\'':
		_, n, ok := quotedLine(l)
		return ok && n < len(l) && l[n] == ':' && (n+1 == len(l) || l[n+1] == ' ')
	}
	if !plainStart(l) {
		return false
	}
	for i := 1; i < len(l); i++ {
		if l[i] == ':' && (i+1 == len(l) || l[i+1] == ' ') {
			return true
		}
		if l[i] == '#' && l[i-1] == ' ' {
			return false
		}
	}
	return false
}

// key reads "key:" at the start of the current line and returns it and the
// rest of the line after the colon.
func (t *transcoder) key() (key, rest []byte, ok bool) {
	l := t.text()
	switch l[0] {
	case '"', '\'':
		s, n, ok := quotedLine(l)
		if !ok || n > 1000 || n >= len(l) || l[n] != ':' || (n+1 < len(l) && l[n+1] != ' ') {
			return nil, nil, false
		}
		return s, l[n+1:], true
	}
	if !plainStart(l) {
		return nil, nil, false
	}
	for i := 1; i < len(l); i++ {
		switch l[i] {
		case ':':
			if i+1 == len(l) || l[i+1] == ' ' {
				k := bytes.TrimRight(l[:i], " ")
				// A simple key is at most 1024 characters long; a key
				// that resolves to a bool, a number or null becomes
				// another string in JSON, or fails.
				if i > 1000 || resolvePlain(k) != plainString {
					return nil, nil, false
				}
				return k, l[i+1:], true
			}
		case '#':
			if l[i-1] == ' ' {
				return nil, nil, false
			}
		}
	}
	return nil, nil, false
}

// value reads what follows "key:" (rest) in the mapping at indent, and the
// lines below it that belong to it.
func (t *transcoder) value(rest []byte, indent int, at where, ident *string) {
	rest = bytes.TrimLeft(rest, " ")
	if len(rest) != 0 && rest[0] != '#' {
		t.inline(rest, indent, ident)
		return
	}
	if ident != nil {
		t.fail = true // not a string: GetName reads "", which the general path says
		return
	}
	t.advance()
	t.skipBlank()
	switch {
	case t.eof || t.cur.indent < indent:
		t.out = append(t.out, "null"...)
	case t.cur.indent == indent:
		if t.isEntry() {
			t.sequence(indent) // a sequence at its key's indentation
		} else {
			t.out = append(t.out, "null"...)
		}
	case t.isEntry():
		t.sequence(t.cur.indent)
	default:
		t.mapping(t.cur.indent, at)
	}
}

// inline reads a scalar that starts on the current line (rest is the
// line from the scalar on), in a collection at indent, and moves past its
// lines. A scalar that names the object (ident) must be a string.
func (t *transcoder) inline(rest []byte, indent int, ident *string) {
	var str []byte
	var ok bool
	switch rest[0] {
	case '"', '\'':
		str, ok = t.quoted(rest, indent)
	case '|':
		str, ok = t.literal(rest, indent)
	case '[', '{':
		if r := trimComment(rest); ident == nil && (string(r) == "[]" || string(r) == "{}") {
			t.out = append(t.out, r...)
			t.advance()
			return
		}
	default:
		if str, ok = t.plain(rest, indent); !ok {
			break
		}
		if k := resolvePlain(str); k != plainString {
			if ident != nil || k == plainOther {
				ok = false
				break
			}
			t.out = append(t.out, plainJSON[k]...)
			if k == plainInt {
				t.out = append(t.out, str...)
			}
			return
		}
	}
	if !ok {
		t.fail = true
		return
	}
	t.out = appendString(t.out, str)
	if ident != nil {
		*ident = string(str)
	}
}
