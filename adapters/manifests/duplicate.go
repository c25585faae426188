package manifests

import (
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// A key twice in one mapping is refused, in YAML and JSON alike, as
// kubectl refuses it (its decoding is strict): decoders that keep the last
// copy (sigs.k8s.io/yaml.YAMLToJSON, encoding/json) would read two pool
// documents run together, their "---" lost, as the second pool alone. The
// fast path sees each mapping's keys and says so at once; the general path
// decodes with YAMLToJSONStrict and, on its refusal, finds the key.

// duplicateKeyError is a key that appears again in the mapping that holds
// it. For example `{"a": 1, "a": 2}` on line 3 is key "a", first 3.
type duplicateKeyError struct {
	key string
	// first is the line of the key's first copy, in the whole file; 0
	// when it could not be found.
	first int
	line  int // the second copy's, counting from the unit or document
}

func (e *duplicateKeyError) Error() string {
	if e.first == 0 {
		return fmt.Sprintf("key %q is repeated in its mapping", e.key)
	}
	return fmt.Sprintf("key %q repeats the one at line %d of the same mapping", e.key, e.first)
}

// in is the refusal of the file name, whose lines the key's count from
// first on.
func (e *duplicateKeyError) in(name string, first int) *Error {
	d := *e
	if d.first != 0 {
		d.first += first - 1
	}
	return &Error{Position: Position{File: name, Line: first + d.line - 1}, Problem: DuplicateKey, err: &d}
}

// strictRepeat is how YAMLToJSONStrict says a key is repeated: the line of
// the second copy's value, and the key as Go prints it.
var strictRepeat = regexp.MustCompile(`line (\d+): key (.*) already set in map`)

// repeatedKey finds the key YAMLToJSONStrict refused doc for, if that is
// why: the first, in the document's order, that repeats a key of its
// mapping, with both lines. Should the nodes not show it (yaml.v2, which
// YAMLToJSON uses, resolves some keys otherwise: yes is true), the
// refusal's own line and key are kept.
func repeatedKey(err error, doc []byte) (*duplicateKeyError, bool) {
	m := strictRepeat.FindStringSubmatch(err.Error())
	if m == nil {
		return nil, false
	}
	var root yaml.Node
	if yaml.Unmarshal(doc, &root) == nil {
		if d := firstRepeat(&root); d != nil {
			return d, true
		}
	}
	line, _ := strconv.Atoi(m[1])
	key := m[2]
	if k, err := strconv.Unquote(key); err == nil {
		key = k
	}
	return &duplicateKeyError{key: key, line: max(line, 1)}, true
}

// firstRepeat walks n in document order, each key before its value, for
// the first scalar key its mapping already holds.
func firstRepeat(n *yaml.Node) *duplicateKeyError {
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.ShortTag() != "!!merge" {
				id := k.ShortTag() + "\x00" + k.Value
				if first, ok := seen[id]; ok {
					return &duplicateKeyError{key: k.Value, first: first, line: k.Line}
				}
				seen[id] = k.Line
			}
			if d := firstRepeat(n.Content[i+1]); d != nil {
				return d
			}
		}
		return nil
	}
	for _, c := range n.Content {
		if d := firstRepeat(c); d != nil {
			return d
		}
	}
	return nil
}
