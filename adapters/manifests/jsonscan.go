package manifests

import (
	"bytes"
	"unicode/utf8"
)

// kubectl get -o json is YAML too: the general path reads it with the YAML
// parser. The JSON scanner checks that a JSON value means to YAML what it
// means to JSON, so that a JSON decoder may read it instead: it declines
// (the caller falls back) whatever the two could read differently or one
// of them refuses: a number but a plain integer, a character YAML does not
// allow, a key past YAML's 1024-character limit or apart from its colon,
// whitespace other than spaces and newlines. A key repeated in its object,
// which a JSON decoder would keep the last of and YAMLToJSONStrict refuses,
// it scans on past and says where (dup).

// jsonScanner reads one JSON document.
type jsonScanner struct {
	src  []byte
	pos  int
	line int // of pos, counting from the scan's first line
	fail bool
	keys []seenKey // at is the key's line
	id   identity
	dup  *duplicateKeyError // the first key repeated in its object
	// items are the entries of the top-level object's "items" array:
	// where each starts and ends, its line, and its identity.
	items []jsonItem
	list  bool // reading the top-level items
}

type jsonItem struct {
	start, end, line int
	id               identity
}

const maxDepth = 100

// scanJSONDocument checks a JSON document holding one object at
// src[start:], whose first line is line, and finds the items of a List. A
// document that repeats a key it scans whole, and says so in dup.
func scanJSONDocument(src []byte, start, line int) (*jsonScanner, bool) {
	s := &jsonScanner{src: src, pos: start, line: line, list: true}
	s.space()
	if s.pos >= len(src) || src[s.pos] != '{' {
		return s, false
	}
	s.object(1, inObject, &s.id)
	s.space()
	return s, !s.fail && s.pos == len(src)
}

// scanJSONItem checks one object that is an item of a List; it declines
// one that repeats a key.
func scanJSONItem(src []byte) (identity, bool) {
	var s jsonScanner
	id, ok := s.scanItem(src)
	return id, ok && s.dup == nil
}

// scanItem is scanJSONItem with s's scratch space; an item that repeats a
// key it scans whole, and says so in s.dup, its lines counted from the
// item's first.
func (s *jsonScanner) scanItem(src []byte) (identity, bool) {
	*s = jsonScanner{src: src, line: 1, keys: s.keys[:0]}
	s.object(1, inObject, &s.id)
	s.space()
	return s.id, !s.fail && s.pos == len(src)
}

func (s *jsonScanner) space() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ':
		case '\n':
			s.line++
		default:
			return
		}
		s.pos++
	}
}

// sameLine skips spaces but not a line break.
func (s *jsonScanner) sameLine() {
	for s.pos < len(s.src) && s.src[s.pos] == ' ' {
		s.pos++
	}
}

// value reads any value at depth; a string is stored in str if not nil.
func (s *jsonScanner) value(depth int, at where, str *string) {
	if s.pos >= len(s.src) || depth > maxDepth {
		s.fail = true
		return
	}
	c := s.src[s.pos]
	if str != nil && c != '"' {
		s.fail = true // a name that is not a string: the general path reads it as ""
		return
	}
	switch {
	case c == '{':
		s.object(depth+1, at, nil)
	case c == '[':
		s.array(depth + 1)
	case c == '"':
		v, ok := s.string()
		if !ok {
			s.fail = true
		} else if str != nil {
			*str = string(v)
		}
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		s.pos++
		for s.pos < len(s.src) && s.src[s.pos] >= '0' && s.src[s.pos] <= '9' {
			s.pos++
		}
		if !decimal(s.src[start:s.pos]) {
			s.fail = true // a float, an exponent, a big integer: YAML and JSON print them apart
		}
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.src[s.pos:], []byte(lit)) {
				s.pos += len(lit)
				return
			}
		}
		s.fail = true
	}
}

// object reads an object; id receives the identity of an object at
// inObject.
func (s *jsonScanner) object(depth int, at where, id *identity) {
	s.pos++ // {
	mark := len(s.keys)
	defer func() { s.keys = s.keys[:mark] }()
	s.space()
	if s.pos < len(s.src) && s.src[s.pos] == '}' {
		s.pos++
		return
	}
	for !s.fail {
		keyStart := s.pos
		key, ok := s.key()
		if !ok || s.pos-keyStart > 1000 {
			s.fail = true
			return
		}
		if s.dup == nil {
			for _, k := range s.keys[mark:] {
				if bytes.Equal(k.name, key) {
					s.dup = &duplicateKeyError{key: string(key), first: k.at, line: s.line}
				}
			}
		}
		s.keys = append(s.keys, seenKey{key, s.line})
		s.sameLine()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			s.fail = true // YAML needs the colon on the key's line
			return
		}
		s.pos++
		s.sameLine()
		var str *string
		child := elsewhere
		if id != nil {
			switch {
			case at == inObject && string(key) == "apiVersion":
				str = &id.apiVersion
				id.has |= hasAPIVersion
			case at == inObject && string(key) == "kind":
				str = &id.kind
				id.has |= hasKind
			case at == inObject && string(key) == "metadata":
				child = inMetadata
			case at == inMetadata && string(key) == "name":
				str = &id.name
			case at == inMetadata && string(key) == "namespace":
				str = &id.namespace
			}
		}
		switch {
		case depth == 1 && at == inObject && string(key) == "items" && s.list:
			id.has |= hasItems
			s.listItems()
		case child == inMetadata && s.pos < len(s.src) && s.src[s.pos] == '{':
			s.object(depth+1, inMetadata, id)
		default:
			s.value(depth, elsewhere, str)
		}
		s.space()
		if s.pos >= len(s.src) {
			s.fail = true
			return
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
			s.space()
		case '}':
			s.pos++
			return
		default:
			s.fail = true
		}
	}
}

// listItems reads the items array of a List, each item an object.
func (s *jsonScanner) listItems() {
	if s.pos >= len(s.src) || s.src[s.pos] != '[' {
		s.fail = true // null or anything else: the general path says what it makes of it
		return
	}
	s.pos++
	s.space()
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		return
	}
	for !s.fail {
		if s.pos >= len(s.src) || s.src[s.pos] != '{' {
			s.fail = true
			return
		}
		it := jsonItem{start: s.pos, line: s.line}
		s.object(2, inObject, &it.id)
		it.end = s.pos
		s.items = append(s.items, it)
		if s.endOfElement() {
			return
		}
	}
}

// endOfElement reads what follows an array's element: a comma (more
// follow) or the closing bracket (true); anything else fails the scan.
func (s *jsonScanner) endOfElement() bool {
	s.space()
	switch {
	case s.pos >= len(s.src):
		s.fail = true
		return true
	case s.src[s.pos] == ',':
		s.pos++
		s.space()
		return false
	case s.src[s.pos] == ']':
		s.pos++
		return true
	}
	s.fail = true
	return false
}

func (s *jsonScanner) array(depth int) {
	s.pos++ // [
	s.space()
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		return
	}
	for !s.fail {
		s.value(depth, elsewhere, nil)
		if s.endOfElement() {
			return
		}
	}
}

// key reads an object's key: a string without escapes, so that keys
// compare as they are written.
func (s *jsonScanner) key() ([]byte, bool) {
	if s.pos >= len(s.src) || s.src[s.pos] != '"' {
		return nil, false
	}
	start := s.pos + 1
	end := bytes.IndexByte(s.src[start:], '"')
	if end < 0 {
		return nil, false
	}
	k := s.src[start : start+end]
	if bytes.IndexByte(k, '\\') >= 0 || !jsonText(k) {
		return nil, false
	}
	s.pos = start + end + 1
	return k, true
}

// string reads a string and returns its raw text between the quotes when
// it has no escape, or its value.
func (s *jsonScanner) string() ([]byte, bool) {
	start := s.pos + 1
	i := start
	for i < len(s.src) {
		c := s.src[i]
		if c == '"' {
			break
		}
		if c == '\\' {
			return s.escapedString(start)
		}
		i++
	}
	if i >= len(s.src) || !jsonText(s.src[start:i]) {
		return nil, false
	}
	s.pos = i + 1
	return s.src[start:i], true
}

func (s *jsonScanner) escapedString(start int) ([]byte, bool) {
	var out []byte
	i := start
	for i < len(s.src) {
		c := s.src[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return out, true
		case c == '\\':
			if i+1 >= len(s.src) {
				return nil, false
			}
			e := s.src[i+1]
			switch e {
			case '"', '\\', 'b', 'f', 'n', 'r', 't': // and not "\/", which YAML 1.1 lacks
				r, _, _ := escape(s.src[i+1:])
				out = append(out, byte(r))
				i += 2
			case 'u':
				r, n, ok := hexEscape(s.src[i+1:], 4)
				if !ok {
					return nil, false
				}
				out = utf8.AppendRune(out, r)
				i += 1 + n
			default:
				return nil, false
			}
		default:
			n := 1
			if c >= utf8.RuneSelf {
				_, n = utf8.DecodeRune(s.src[i:])
			}
			if !jsonText(s.src[i : i+n]) {
				return nil, false
			}
			out = append(out, s.src[i:i+n]...)
			i += n
		}
	}
	return nil, false
}

// jsonText reports whether the raw text of a string is printable as
// YAML reads it and needs no escape in JSON.
func jsonText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return printable(b) && bytes.IndexByte(b, '\n') < 0
		}
	}
	return true
}
