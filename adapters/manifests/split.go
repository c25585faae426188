package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// The splitter walks a file once, line by line, as utilyaml.YAMLReader
// does, and cuts each document into units a worker decodes on its own: a
// List's items (kubectl prints them at the left margin in YAML, and as the
// entries of "items" in JSON), the List's other keys, or a whole document
// holding one object. A document whose shape it does not know is marked
// slow: it is read again, later, by the general decoder.

// source is a file: its lines in order for the splitter, and any range of
// it again for the general decoder.
type source struct {
	ra   io.ReaderAt
	br   *bufio.Reader
	off  int64 // of the next line
	line int   // number of the next line
	long []byte
	err  error
}

func newSource(ra io.ReaderAt, size int64) *source {
	return &source{ra: ra, br: bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 1<<20), line: 1}
}

// next returns the next line with its newline (none on the last line),
// valid until the following call; ok is false at the end.
func (s *source) next() (l []byte, off int64, n int, ok bool) {
	l, err := s.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) {
			l, err = s.br.ReadSlice('\n')
			s.long = append(s.long, l...)
		}
		l = s.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
		return nil, 0, 0, false
	}
	if len(l) == 0 {
		return nil, 0, 0, false
	}
	off, n = s.off, s.line
	s.off += int64(len(l))
	s.line++
	return l, off, n, true
}

// readRange reads [start, end) of the file again.
func (s *source) readRange(start, end int64) ([]byte, error) {
	b := make([]byte, end-start)
	_, err := s.ra.ReadAt(b, start)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return b, err
}

type unitKind uint8

const (
	entryUnit    unitKind = iota // an item of a List printed in YAML
	yamlDocUnit                  // a document of one object, or a List's other keys
	jsonItemUnit                 // an item of a List in JSON
	jsonDocUnit                  // a JSON document, its List's items left as {}
)

// unit is a piece of a document a worker decodes; the result fields are
// the worker's.
type unit struct {
	kind       unitKind
	start, end int  // in its batch's data
	line       int  // where its object starts
	listHead   bool // the keys of a List but its items: no object

	ok    bool
	dup   *duplicateKeyError // read whole but for a key repeated: not ok
	id    identity
	items int    // of a JSON document: the items it holds
	obj   any    // the object in its API type, trimmed, until it is stored
	slot  int    // where it is stored in its kind's slice of the State, or -1
	json  []byte // the object as JSON, when the general path converts it
}

// batch is units a worker decodes together, and their bytes.
type batch struct {
	data  []byte
	units []unit
}

// unitRef names a unit.
type unitRef struct {
	b *batch
	i int
}

func (r unitRef) get() *unit { return &r.b.units[r.i] }

// document is one document of the file and how it was cut.
type document struct {
	start, end int64 // its bytes in the file
	line       int   // its first line
	objectLine int   // its first line that is not a separator, blank or a comment
	slow       bool  // the splitter does not know its shape
	list       bool
	head       unitRef   // the document's object, or its List's other keys
	items      []unitRef // a List's items
	hasHead    bool
}

const (
	batchBytes = 256 << 10
	batchUnits = 256
)

// splitter cuts a file into documents and units, and hands full batches
// to the workers.
type splitter struct {
	src        *source
	send       func(*batch)
	newBatch   func() *batch
	docs       []*document
	badSep     int    // the line of a separator with more than a comment after it
	badSepText []byte // and the line

	b   *batch
	doc *document

	// The document being read.
	state    splitState
	head     []byte // its List's other keys, or its whole object
	item     int    // the index of the item being read in b, or -1
	seenKeys bool
	js       jsonSplit
}

type splitState uint8

const (
	atStart       splitState = iota // no content line yet
	yamlHead                        // keys of a YAML document
	yamlItemsNext                   // after "items:", before its first entry
	yamlItems                       // in a List's items
	inJSON
	skipping // the document is slow: its lines are only counted
)

func (sp *splitter) run() error {
	sp.item = -1
	sp.b = sp.newBatch()
	for {
		l, off, n, ok := sp.src.next()
		if !ok {
			break
		}
		if bytes.HasPrefix(l, []byte("---")) {
			if t := strings.TrimSpace(string(l[3:])); t != "" && t[0] != '#' {
				// YAMLReader fails here, before it hands out the
				// document the separator would end.
				sp.doc = nil
				sp.badSep, sp.badSepText = n, append([]byte(nil), l...)
				break
			}
			if sp.doc != nil {
				sp.endDocument(off)
				continue // the separator ends the document, and belongs to none
			}
			sp.startDocument(off, n)
			if !printable(l) || (len(l) > 3 && l[3] != ' ' && l[3] != '\n') {
				// The YAML reader reads the separator that opens a
				// document; "---#" is no separator to YAML but a scalar.
				sp.slow()
			}
			continue // the separator opens the document
		}
		if sp.doc == nil {
			sp.startDocument(off, n)
		}
		sp.line(l, n)
	}
	if sp.src.err != nil {
		return sp.src.err
	}
	if sp.doc != nil {
		sp.endDocument(sp.src.off)
	}
	sp.flush()
	return nil
}

func (sp *splitter) startDocument(off int64, n int) {
	sp.doc = &document{start: off, line: n}
	sp.state = atStart
	sp.head = sp.head[:0]
	sp.seenKeys = false
	sp.item = -1
	sp.js = jsonSplit{}
}

// line takes one line of the current document.
func (sp *splitter) line(l []byte, n int) {
	if sp.state == skipping {
		return
	}
	if bytes.IndexByte(l, '\r') >= 0 {
		sp.slow() // YAMLReader drops the \r of \r\n; the general path does it
		return
	}
	if sp.state == atStart {
		t := bytes.TrimLeft(l, " ")
		if len(t) == 0 || t[0] == '\n' || t[0] == '#' {
			if !printable(l) {
				sp.slow() // the YAML reader reads comments too
				return
			}
			sp.head = append(sp.head, l...)
			return
		}
		sp.doc.objectLine = n
		if t[0] == '{' {
			sp.state = inJSON
			sp.head = sp.head[:0] // the comments before the object are YAML's, not JSON's
		} else {
			sp.state = yamlHead
		}
	}
	if sp.state == inJSON {
		sp.jsonLine(l, n)
		return
	}
	sp.yamlLine(l, n)
}

// yamlLine takes a line of a YAML document: a line at the left margin is
// a key of the document, an entry of its items, or the splitter gives up.
func (sp *splitter) yamlLine(l []byte, n int) {
	if l[0] == ' ' || l[0] == '\n' || l[0] == '#' {
		sp.appendLine(l)
		return
	}
	if l[0] == '-' && (len(l) == 1 || l[1] == ' ' || l[1] == '\n') {
		if sp.state != yamlItems && sp.state != yamlItemsNext {
			sp.slow()
			return
		}
		sp.endItem()
		sp.state = yamlItems
		sp.startItem(entryUnit, n)
		sp.appendLine(l)
		return
	}
	if sp.state == yamlItemsNext {
		sp.slow() // items: followed by a key is null items
		return
	}
	key, rest, ok := marginKey(l)
	if !ok {
		sp.slow()
		return
	}
	sp.endItem()
	sp.state = yamlHead
	if key == "items" {
		if sp.doc.list {
			sp.slow() // a repeated key
			return
		}
		sp.doc.list = true
		switch strings.TrimSpace(rest) {
		case "":
			sp.state = yamlItemsNext
		case "[]":
		default:
			sp.slow()
		}
		return
	}
	sp.head = append(sp.head, l...)
}

// marginKey reads a plain key at the left margin ("key:" followed by a
// space or the line's end).
func marginKey(l []byte) (key, rest string, ok bool) {
	if !plainStart(l) {
		return "", "", false
	}
	line := strings.TrimSuffix(string(l), "\n")
	for i := 1; i < len(line); i++ {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ') {
			return line[:i], line[i+1:], true
		}
	}
	return "", "", false
}

// appendLine adds a line to what is being read: an item or the head.
func (sp *splitter) appendLine(l []byte) {
	if sp.item >= 0 {
		sp.b.data = append(sp.b.data, l...)
		return
	}
	if sp.state == yamlItemsNext && l[0] != '\n' && l[0] != '#' {
		sp.slow() // an indented line under items: not kubectl's margin
		return
	}
	sp.head = append(sp.head, l...)
}

func (sp *splitter) startItem(k unitKind, n int) {
	sp.b.units = append(sp.b.units, unit{kind: k, start: len(sp.b.data), line: n, slot: -1})
	sp.item = len(sp.b.units) - 1
}

// endItem ends the item being read; the batch goes to a worker when full.
func (sp *splitter) endItem() {
	if sp.item < 0 {
		return
	}
	u := &sp.b.units[sp.item]
	u.end = len(sp.b.data)
	if u.kind == entryUnit && (u.end == u.start || sp.b.data[u.end-1] != '\n') {
		sp.b.data = append(sp.b.data, '\n') // YAMLReader ends the last line
		u.end++
	}
	sp.doc.items = append(sp.doc.items, unitRef{sp.b, sp.item})
	sp.item = -1
	if len(sp.b.data) >= batchBytes || len(sp.b.units) >= batchUnits {
		sp.flush()
	}
}

func (sp *splitter) flush() {
	if len(sp.b.units) > 0 {
		sp.send(sp.b)
		sp.b = sp.newBatch()
	}
}

// slow gives the document up to the general decoder.
func (sp *splitter) slow() {
	sp.doc.slow = true
	sp.state = skipping
	if sp.item >= 0 {
		// Drop the item being read: nobody will look at it.
		u := sp.b.units[sp.item]
		sp.b.units = sp.b.units[:sp.item]
		sp.b.data = sp.b.data[:u.start]
		sp.item = -1
	}
}

func (sp *splitter) endDocument(end int64) {
	d := sp.doc
	if d == nil {
		return
	}
	defer func() { sp.doc = nil }()
	d.end = end
	sp.docs = append(sp.docs, d)
	if d.slow {
		return
	}
	switch sp.state {
	case atStart:
		return // blank lines and comments
	case yamlItemsNext:
		d.slow = true
		return
	case inJSON:
		if sp.item >= 0 || !sp.js.closed {
			d.slow = true
			sp.slow()
			return
		}
	}
	sp.endItem()
	k := yamlDocUnit
	if sp.state == inJSON {
		k = jsonDocUnit
	}
	if len(sp.head) == 0 {
		d.slow = true // a List without its own keys has no kind
		return
	}
	sp.b.units = append(sp.b.units, unit{kind: k, start: len(sp.b.data), line: d.objectLine, listHead: d.list, slot: -1})
	sp.b.data = append(sp.b.data, sp.head...)
	if k == yamlDocUnit && sp.b.data[len(sp.b.data)-1] != '\n' {
		sp.b.data = append(sp.b.data, '\n')
	}
	sp.b.units[len(sp.b.units)-1].end = len(sp.b.data)
	d.head, d.hasHead = unitRef{sp.b, len(sp.b.units) - 1}, true
	if len(sp.b.data) >= batchBytes || len(sp.b.units) >= batchUnits {
		sp.flush()
	}
}

// jsonSplit follows the structure of a JSON document byte by byte, only so
// far as to find the entries of its top-level "items" array; the JSON
// scanner checks the rest.
type jsonSplit struct {
	depth     int
	inString  bool
	escaped   bool
	key       []byte // the last string at depth 1
	keyDone   bool
	wantItems bool // after "items": at depth 1
	inItems   bool
	started   bool
	closed    bool
}

// jsonLine takes a line of a JSON document: the bytes of the items go to
// their own units, each item replaced by {} in the document's head.
func (sp *splitter) jsonLine(l []byte, n int) {
	js := &sp.js
	from := 0 // the start of the bytes not yet copied
	emit := func(to int) {
		if sp.item >= 0 {
			sp.b.data = append(sp.b.data, l[from:to]...)
		} else {
			sp.head = append(sp.head, l[from:to]...)
		}
		from = to
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if js.inString {
			if js.escaped {
				js.escaped = false
			} else if c == '\\' {
				js.escaped = true
			} else if c == '"' {
				js.inString = false
				js.keyDone = true
			} else if js.depth == 1 && len(js.key) < 8 {
				js.key = append(js.key, c)
			}
			continue
		}
		switch c {
		case ' ', '\n', '\t':
			continue
		case '"':
			js.inString = true
			js.wantItems = false
			if js.depth == 1 {
				js.key, js.keyDone = js.key[:0], false
			}
			continue
		case ':':
			js.wantItems = js.depth == 1 && js.keyDone && string(js.key) == "items"
			continue
		case '[':
			js.depth++
			if js.wantItems && js.depth == 2 {
				js.inItems = true
				sp.doc.list = true
			}
		case '{':
			js.depth++
			if js.depth == 1 {
				if js.started {
					sp.slow() // a second value
					return
				}
				js.started = true
			}
			if js.inItems && js.depth == 3 {
				if sp.item >= 0 {
					sp.slow() // brackets that do not match
					return
				}
				emit(i)
				sp.head = append(sp.head, "{}"...)
				sp.startItem(jsonItemUnit, n)
			}
		case '}':
			js.depth--
			if js.inItems && js.depth == 2 {
				emit(i + 1)
				sp.endItem()
			}
			if js.depth == 0 {
				js.closed = true
			}
		case ']':
			js.depth--
			if sp.item >= 0 && js.depth < 3 {
				sp.slow() // an item closed by a bracket
				return
			}
			if js.inItems && js.depth == 1 {
				js.inItems = false
			}
		}
		js.wantItems = false
		js.keyDone = false
		if js.depth < 0 {
			sp.slow()
			return
		}
	}
	emit(len(l))
}
