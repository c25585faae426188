package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// Document is one Kubernetes object of a file and the line it starts on.
type Document struct {
	// Line is where the object starts, counting from 1 in the whole file:
	// its document's first line, or its entry in a List's items.
	Line   int
	Object *unstructured.Unstructured
}

// Documents decodes the Kubernetes objects of a file: "---"-separated YAML
// documents, JSON, and Lists (kind List, or any kind ending in List with
// items, as the API server and kubectl get -o yaml print them), which it
// opens into their items. Empty documents are skipped. name is the file's
// name for errors.
//
// A document that does not parse, or is not a Kubernetes object, fails the
// whole file with an *Error naming the file and the line: a state with an
// object silently dropped would be a state that lies.
func Documents(name string, r io.Reader) ([]Document, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return documents(name, data, 1)
}

// documents decodes data, whose first line is line first of the file.
func documents(name string, data []byte, first int) ([]Document, error) {
	var out []Document
	lines := lineCursor{data: data, line: first}
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, &Error{Position: Position{File: name, Line: lines.badSeparator()}, Problem: Syntax, err: err}
		}
		start := lines.document(bytes.Count(doc, []byte("\n")))
		objs, err := decode(name, doc, start)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

// separatorError is the error YAMLReader gives for a separator line with
// more than a comment after it.
func separatorError(line []byte) error {
	_, err := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(line))).Read()
	return err
}

// decode turns one YAML document starting at line start into its objects.
func decode(name string, doc []byte, start int) ([]Document, error) {
	// The state reader's transcoder takes what kubectl prints (and what a
	// generator writes) at several times YAMLToJSON's speed, exact or not
	// at all; anything else (comments, flow collections, anchors) goes the
	// general way.
	js, _, ok := transcodeDocument(nil, doc)
	if !ok {
		var err error
		// Strict, as kubectl decodes: a key twice in a mapping is refused,
		// where YAMLToJSON keeps the last (a pool file that lost the
		// "---" between two pools would plan one of them).
		if js, err = sigsyaml.YAMLToJSONStrict(doc); err != nil {
			if d, ok := repeatedKey(err, doc); ok {
				return nil, d.in(name, start)
			}
			return nil, &Error{Position: Position{File: name, Line: syntaxLine(err, start, doc)}, Problem: Syntax, err: err}
		}
	}
	if bytes.Equal(js, []byte("null")) {
		return nil, nil // only comments or blank lines
	}
	if js[0] != '{' {
		return nil, &Error{Position: Position{File: name, Line: objectLine(doc, start)}, Problem: NotAnObject,
			err: fmt.Errorf("the document is %s, not a mapping", jsonType(js[0]))}
	}
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(js, nil, nil)
	if err != nil {
		return nil, &Error{Position: Position{File: name, Line: objectLine(doc, start)}, Problem: NotAnObject, err: notAnObject(err)}
	}
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		line := objectLine(doc, start)
		if err := isObject(o); err != nil {
			return nil, &Error{Position: Position{File: name, Line: line}, Problem: NotAnObject, err: err}
		}
		return []Document{{Line: line, Object: o}}, nil
	case *unstructured.UnstructuredList:
		at := itemLines(doc, start, len(o.Items))
		out := make([]Document, len(o.Items))
		for i := range o.Items {
			if err := isObject(&o.Items[i]); err != nil {
				return nil, &Error{Position: Position{File: name, Line: at[i]}, Problem: NotAnObject, err: fmt.Errorf("items[%d]: %w", i, err)}
			}
			out[i] = Document{Line: at[i], Object: &o.Items[i]}
		}
		return out, nil
	}
	return nil, &Error{Position: Position{File: name, Line: start}, Problem: NotAnObject, err: fmt.Errorf("decoded as %T", obj)}
}

func isObject(o *unstructured.Unstructured) error {
	switch {
	case o.GetAPIVersion() == "":
		return errors.New("the object has no apiVersion")
	case o.GetKind() == "":
		return errors.New("the object has no kind")
	}
	return nil
}

// notAnObject says plainly why a document did not decode as an object.
func notAnObject(err error) error {
	if runtime.IsMissingKind(err) {
		return errors.New("the object has no kind")
	}
	return fmt.Errorf("not a Kubernetes object: %w", err)
}

func jsonType(first byte) string {
	switch first {
	case '[':
		return "a sequence"
	case '"':
		return "a string"
	}
	return "a scalar"
}

// yamlLine is how the YAML parser places an error: only in its message.
var yamlLine = regexp.MustCompile(`\bline (\d+):`)

// syntaxLine places a YAML error of the document starting at start in the
// whole file. The parser says the line of most errors in its message; the
// reader (a control character, invalid UTF-8) and the conversion to JSON
// (an infinite or not-a-number float, a null or collection key) say none,
// so those are found where they are. An error found nowhere points at the
// document.
func syntaxLine(err error, start int, doc []byte) int {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		if at, ok := unreadable(doc); ok {
			return start + at - 1
		}
		if at, ok := unconvertible(err, doc); ok {
			return start + at - 1
		}
		return start
	}
	n, _ := strconv.Atoi(m[1])
	// "unexpected end of stream" is reported one past the last line.
	if last := bytes.Count(doc, []byte("\n")); n > last {
		n = last
	}
	if n < 1 {
		n = 1
	}
	return start + n - 1
}

// unreadable finds the line of the first character the YAML reader
// refuses: invalid UTF-8, or a character YAML does not allow (a control
// character but tab and line breaks, DEL, a surrogate, U+FFFE, U+FFFF).
func unreadable(doc []byte) (int, bool) {
	if bytes.HasPrefix(doc, []byte{0xfe, 0xff}) || bytes.HasPrefix(doc, []byte{0xff, 0xfe}) {
		return 0, false // UTF-16, which the reader decodes otherwise
	}
	for i := 0; i < len(doc); {
		r, n := utf8.DecodeRune(doc[i:])
		ok := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7e) || r == 0x85 ||
			(r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= 0x10ffff)
		if r == utf8.RuneError && n <= 1 || !ok {
			return 1 + bytes.Count(doc[:i], []byte("\n")), true
		}
		i += n
	}
	return 0, false
}

// infinities are the floats YAML 1.1 reads and JSON cannot hold.
var infinities = map[string]bool{
	".inf": true, ".Inf": true, ".INF": true, "+.inf": true, "+.Inf": true, "+.INF": true,
	"-.inf": true, "-.Inf": true, "-.INF": true, ".nan": true, ".NaN": true, ".NAN": true,
}

// unconvertible finds the line of what YAMLToJSON could not convert: the
// first infinite or not-a-number float for an unsupported value, the
// first null or collection key for an unsupported map key.
func unconvertible(err error, doc []byte) (int, bool) {
	msg := err.Error()
	floats, keys := strings.Contains(msg, "unsupported value"), strings.Contains(msg, "unsupported map key")
	if !floats && !keys {
		return 0, false
	}
	var root yaml.Node
	if yaml.Unmarshal(doc, &root) != nil {
		return 0, false
	}
	line := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || line != 0 {
			return
		}
		if floats && n.Kind == yaml.ScalarNode && n.Style == 0 && infinities[n.Value] {
			line = n.Line
			return
		}
		if keys && n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode || (k.Style == 0 && (k.Value == "" || k.Value == "~" || k.Value == "null" || k.Value == "Null" || k.Value == "NULL")) {
					line = k.Line
					return
				}
				walk(n.Content[i+1])
				if line != 0 {
					return
				}
			}
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	return line, line != 0
}

// itemLines finds where each entry of a List's items starts. The JSON the
// objects were decoded from has no positions, so the YAML is parsed again
// into nodes; should that disagree with the decode, the items point at the
// List.
func itemLines(doc []byte, start, n int) []int {
	if at, ok := printedItemLines(doc, start, n); ok {
		return at
	}
	at := make([]int, n)
	for i := range at {
		at[i] = start
	}
	var root yaml.Node
	if yaml.Unmarshal(doc, &root) != nil || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return at
	}
	m := root.Content[0].Content
	for i := 0; i+1 < len(m); i += 2 {
		if m[i].Value != "items" || m[i+1].Kind != yaml.SequenceNode || len(m[i+1].Content) != n {
			continue
		}
		// A lone "\r" ends a line for YAML but not for the reader: keep
		// such a file's lines inside the document.
		last := start + bytes.Count(doc, []byte("\n")) - 1
		for j, item := range m[i+1].Content {
			at[j] = min(max(start+item.Line-1, start), last)
		}
	}
	return at
}

// printedItemLines finds the items' lines in a List as the API server and
// kubectl print it (a top-level "items:" followed by a block sequence at the
// left margin) without parsing the document again: a second YAML parse of a
// 50 MB List costs a quarter of its decode. It reports false, and the
// caller parses, whenever the count of entries it finds is not the count of
// items decoded.
func printedItemLines(doc []byte, start, n int) ([]int, bool) {
	at := make([]int, 0, n)
	inItems := false
	line := start
	for rest := doc; len(rest) > 0; line++ {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) == 0 || l[0] == ' ' || l[0] == '#' {
			continue
		}
		switch {
		case l[0] == '-' && (len(l) == 1 || l[1] == ' '):
			if !inItems {
				return nil, false
			}
			at = append(at, line)
		case bytes.HasPrefix(l, []byte("items:")):
			inItems = len(bytes.TrimSpace(l[len("items:"):])) == 0
		default:
			inItems = false
		}
	}
	return at, len(at) == n
}

// lineCursor follows utilyaml.YAMLReader through the file to number its
// documents. The reader hands out each document as the file's lines,
// unchanged, and drops only the separator line that ends a document; a
// separator that ends nothing (the file's first line, or one right after
// another) stays as the first line of the next document.
type lineCursor struct {
	data []byte
	pos  int // offset of the first line not yet accounted for
	line int // its number
}

// document accounts for the next document, of n lines, and the separator
// after it, and returns the line the document starts on.
func (c *lineCursor) document(n int) int {
	start := c.line
	for range n {
		c.next()
	}
	if c.startsWith("---") {
		c.next()
	}
	return start
}

// badSeparator finds the separator the reader refused: the first line from
// here that starts with "---" and carries more than a comment, which is the
// reader's rule.
func (c *lineCursor) badSeparator() int {
	for c.pos < len(c.data) {
		if after, ok := bytes.CutPrefix(c.current(), []byte("---")); ok {
			if t := strings.TrimSpace(string(after)); t != "" && t[0] != '#' {
				return c.line
			}
		}
		c.next()
	}
	return c.line
}

func (c *lineCursor) current() []byte {
	rest := c.data[c.pos:]
	if end := bytes.IndexByte(rest, '\n'); end >= 0 {
		return rest[:end]
	}
	return rest
}

func (c *lineCursor) startsWith(p string) bool {
	return c.pos < len(c.data) && bytes.HasPrefix(c.data[c.pos:], []byte(p))
}

func (c *lineCursor) next() {
	if i := bytes.IndexByte(c.data[c.pos:], '\n'); i >= 0 {
		c.pos += i + 1
	} else {
		c.pos = len(c.data)
	}
	c.line++
}

// objectLine is the line a document's object starts on: past a leading
// separator, blank lines and comments. Should every line look like those
// ("---#" is a scalar to YAML), it is the document's first line.
func objectLine(doc []byte, start int) int {
	for line := start; len(doc) > 0; line++ {
		text := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			text, doc = doc[:i], doc[i+1:]
		} else {
			doc = nil
		}
		t := strings.TrimSpace(string(bytes.TrimPrefix(text, []byte("---"))))
		if t != "" && t[0] != '#' {
			return line
		}
	}
	return start
}
