package manifests

import (
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
)

// NoteReason says why an object of the input did not make it into the State.
type NoteReason string

const (
	// KindNotRead is an object of a kind the planner does not read.
	KindNotRead NoteReason = "KindNotRead"
	// Superseded is an object that appears again later (in the same file
	// or a later one); the later copy is kept.
	Superseded NoteReason = "Superseded"
)

// Position is a line in a file.
type Position struct {
	File string
	Line int
}

// Note is an object left out of the State, and why. Notes are for the
// operator (the CLI prints them on standard error), never errors.
type Note struct {
	File   string
	Line   int
	Reason NoteReason
	// The object, as the input named it.
	APIVersion, Kind, Namespace, Name string
	// By is the later copy that replaced a Superseded object.
	By Position
}

func (n Note) String() string {
	obj := n.Name
	if n.Namespace != "" {
		obj = n.Namespace + "/" + n.Name
	}
	switch n.Reason {
	case Superseded:
		return fmt.Sprintf("%s:%d: %s %s %s appears again at %s:%d, which is kept", n.File, n.Line, n.APIVersion, n.Kind, obj, n.By.File, n.By.Line)
	default:
		return fmt.Sprintf("%s:%d: skipped %s %s %s: the planner reads only %s", n.File, n.Line, n.APIVersion, n.Kind, obj, kinds.Read())
	}
}
