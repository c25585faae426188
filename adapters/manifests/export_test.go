package manifests

import (
	"errors"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Unread is the kinds r held only in a version the planner does not read.
func Unread(r Result) state.Kind { return r.unread }

// Objects is the count of the objects of the planner's kinds in r's State.
func Objects(r Result) int { return r.objects }

// WithKinds is a Result that held the kinds held, and unread in a version
// the planner does not read.
func WithKinds(held, unread state.Kind) Result { return Result{Held: held, unread: unread} }

// RepeatedKey is the key err says is repeated and the line of its first
// copy, ok when err holds a repeated key.
func RepeatedKey(err error) (key string, first int, ok bool) {
	var d *duplicateKeyError
	if !errors.As(err, &d) {
		return "", 0, false
	}
	return d.key, d.first, true
}
