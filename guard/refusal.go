package guard

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Refusal is a plan the library will not make. It names its reason, the values
// field it is about, the value found there, what it concerns (a pool or a
// catalog entry) and a detail that says both sides of any mismatch and the
// supported way out.
type Refusal struct {
	Reason   Reason
	Field    string
	BadValue any
	// Subject names what was refused: "pool tenant-a/demo-md0",
	// "catalog images[2] (ce4c…/v1.13.6)".
	Subject string
	Detail  string
}

// NewRefusal builds a refusal for fld. The subject is set by the Collector
// that gathers it.
func NewRefusal(reason Reason, fld *field.Path, bad any, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Field: pathString(fld), BadValue: bad, Detail: fmt.Sprintf(format, args...)}
}

// Error reads "<subject>: <field>: <detail> (<reason>)".
func (r *Refusal) Error() string { return render(r.Subject, r.Field, r.Detail, r.Reason) }

// Message is the error text; it names the subject.
func (r *Refusal) Message() string { return r.Error() }

// Is matches a target refusal that carries only a reason (and, optionally, a
// field), so that errors.Is(err, &guard.Refusal{Reason: guard.StorageClassMismatch})
// finds a refusal in an aggregate.
func (r *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	if !ok || t.Reason != r.Reason {
		return false
	}
	return t.Field == "" || t.Field == r.Field
}

// Warning is a finding that lets the plan stand. It has the shape of a
// Refusal but is not an error, so it cannot be returned as one by mistake.
type Warning struct {
	Reason Reason
	Field  string
	// Value is what the warning is about where no field says it: the kind a
	// StateUnverified could not read, the field a DroppedField dropped.
	Value   string
	Subject string
	Detail  string
}

// NewWarning builds a warning for fld.
func NewWarning(reason Reason, fld *field.Path, format string, args ...any) Warning {
	return Warning{Reason: reason, Field: pathString(fld), Detail: fmt.Sprintf(format, args...)}
}

// Message reads "<subject>: <field>: <detail> (<reason>)".
func (w Warning) Message() string { return render(w.Subject, w.Field, w.Detail, w.Reason) }

// String is Message.
func (w Warning) String() string { return w.Message() }

func pathString(fld *field.Path) string {
	if fld == nil {
		return ""
	}
	return fld.String()
}

func render(subject, fld, detail string, reason Reason) string {
	s := detail
	if fld != "" {
		s = fld + ": " + s
	}
	if subject != "" {
		s = subject + ": " + s
	}
	return s + " (" + string(reason) + ")"
}
