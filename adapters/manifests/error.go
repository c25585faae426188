package manifests

import "fmt"

// Problem says what is wrong with a document. Tests and callers compare
// problems, never message text.
type Problem string

const (
	// Syntax is YAML that does not parse, or a document separator with
	// more than a comment after it.
	Syntax Problem = "Syntax"
	// NotAnObject is a document that is not a Kubernetes object: not a
	// mapping, or without apiVersion or kind.
	NotAnObject Problem = "NotAnObject"
	// InvalidObject is an object of a kind the planner reads whose fields
	// do not fit the kind's type (a string where a list belongs), or
	// without the name (and, for a namespaced kind, the namespace) that
	// kubectl get always prints.
	InvalidObject Problem = "InvalidObject"
	// DuplicateKey is a mapping that holds a key twice (two metadata
	// keys where a "---" between two documents went missing). kubectl
	// refuses it; decoders that keep the last copy would drop the first.
	// The Error's Line is the second copy's; its message names the key
	// and the line of the first copy.
	DuplicateKey Problem = "DuplicateKey"
)

// Error is input that cannot be read as Kubernetes objects. Line counts from
// 1 within the whole file, not within the document; the Error unwraps to
// what the decoder said.
type Error struct {
	Position
	Problem Problem
	err     error
}

func (e *Error) Error() string {
	var way string
	switch e.Problem {
	case Syntax:
		way = "fix the YAML there"
	case NotAnObject:
		way = "each document must be a Kubernetes object with apiVersion and kind, as kubectl get -o yaml prints it"
	case InvalidObject:
		way = "export the object again with kubectl get -o yaml"
	case DuplicateKey:
		way = "a key appears twice; is a `---` missing between two documents?"
	}
	return fmt.Sprintf("%s:%d: %v (%s)", e.File, e.Line, e.err, way)
}

func (e *Error) Unwrap() error { return e.err }
