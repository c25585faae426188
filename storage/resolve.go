package storage

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Origin says where a resolved class came from.
type Origin string

const (
	// Explicit: the values name the class; an explicit class always wins.
	Explicit Origin = "explicit"
	// Frozen: the values leave the class empty and disks that already exist
	// are bound on it, so it stays whatever the cluster default becomes.
	Frozen Origin = "frozen"
	// Default: the values leave the class empty and nothing is bound yet,
	// so CDI will pick the cluster default.
	Default Origin = "default"
	// Cluster: the class is left to the cluster at apply time (the HTTP
	// path, or a clone planned offline).
	Cluster Origin = "cluster"
)

// Resolution is a class and where it came from.
type Resolution struct {
	Name string `json:"name"`
	From Origin `json:"from"`
}

// String reads `"replicated" (explicit)`.
func (r Resolution) String() string { return fmt.Sprintf("%q (%s)", r.Name, r.From) }

// Input is what a class is resolved from.
type Input struct {
	// Named is the class the values or the live object name; "" means not named.
	Named string
	// Bound lists the classes of the disks that already exist (duplicates allowed).
	// BoundKnown is false when those disks could not be observed.
	Bound      []string
	BoundKnown bool
	// Default is the cluster default (see DefaultClass): "" when the
	// StorageClasses were observed and none is a default. DefaultKnown is
	// false when they were not observed.
	Default      string
	DefaultKnown bool
}

// Errors of Resolve. They carry no subject: the caller turns them into
// refusals or warnings.
var (
	// ErrNoDefault: the cluster was observed and has no default class.
	ErrNoDefault = errors.New("the cluster has no default StorageClass")
	// ErrDefaultUnknown: StorageClasses could not be observed.
	ErrDefaultUnknown = errors.New("StorageClasses were not observed, so the cluster default is unknown")
)

// ConflictError says the disks that already exist are on more than one class.
type ConflictError struct{ Classes []string }

func (e *ConflictError) Error() string {
	return "existing disks are bound on more than one class: " + strings.Join(e.Classes, ", ")
}

// Resolve picks the class: the named one if any; else the one the existing
// disks are bound on (frozen), refusing several; else the cluster default.
// For example Resolve(Input{Bound: []string{"a", "a"}, BoundKnown: true})
// is "a" (frozen); with Bound {"a", "b"} it is a *ConflictError, never a pick
// by list order. Empty classes in Bound are ignored.
//
// When the bound disks are unknown (BoundKnown false), the default is still
// resolved, since it is the class a first disk gets; the caller, which set
// BoundKnown, must not treat "no disks yet" as proven (a refusal resting on
// it becomes a StateUnverified warning).
func Resolve(in Input) (Resolution, error) {
	if in.Named != "" {
		return Resolution{Name: in.Named, From: Explicit}, nil
	}
	if only, many := single(in.Bound); many {
		return Resolution{}, &ConflictError{Classes: distinct(in.Bound)}
	} else if only != "" {
		return Resolution{Name: only, From: Frozen}, nil
	}
	switch {
	case !in.DefaultKnown:
		return Resolution{From: Default}, ErrDefaultUnknown
	case in.Default == "":
		return Resolution{From: Default}, ErrNoDefault
	}
	return Resolution{Name: in.Default, From: Default}, nil
}

// single returns the one non-empty class of classes without allocating, or
// reports that there are several.
func single(classes []string) (only string, many bool) {
	for _, c := range classes {
		switch {
		case c == "" || c == only:
		case only == "":
			only = c
		default:
			return "", true
		}
	}
	return only, false
}

// distinct returns the sorted distinct non-empty classes.
func distinct(classes []string) []string {
	out := slices.DeleteFunc(slices.Clone(classes), func(c string) bool { return c == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
