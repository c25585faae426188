package cli

import (
	"errors"
	"fmt"
)

// Exit statuses.
const (
	// ExitPlanned: everything planned; warnings may have been printed.
	ExitPlanned = 0
	// ExitFailed: anything else, such as a cluster that cannot be read.
	ExitFailed = 1
	// ExitUnusable: unusable input: a bad flag, an unreadable file, YAML
	// that does not parse, a document that is not a Kubernetes object.
	ExitUnusable = 2
	// ExitRefused: something was refused; the refusals say why.
	ExitRefused = 3
	// ExitUnverified: nothing was refused, but a plan could not read a
	// kind it needed from the cluster: it is not a plan that passed.
	ExitUnverified = 4
)

// exitError carries the status a command ends with.
type exitError struct {
	code int
	err  error
	// usage marks a mistake in the command line: its help says how.
	usage bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errRefused ends a command whose refusals are already printed.
var errRefused = &exitError{code: ExitRefused, err: errors.New("refused")}

// errUnverified ends a command whose unverified plans are already
// printed.
var errUnverified = &exitError{code: ExitUnverified, err: errors.New("unverified")}

// badUsage is a mistake in the command line: status 2.
func badUsage(format string, args ...any) error {
	return &exitError{code: ExitUnusable, err: fmt.Errorf(format, args...), usage: true}
}

// isUsage reports whether err is a mistake in the command line.
func isUsage(err error) bool {
	var e *exitError
	return errors.As(err, &e) && e.usage
}

// unusable is input the command cannot use: status 2.
func unusable(format string, args ...any) error {
	return &exitError{code: ExitUnusable, err: fmt.Errorf(format, args...)}
}

// failed is anything else: status 1.
func failed(format string, args ...any) error {
	return &exitError{code: ExitFailed, err: fmt.Errorf(format, args...)}
}

// codeOf is the status an error ends the command with.
func codeOf(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	if err == nil {
		return ExitPlanned
	}
	return ExitFailed
}
