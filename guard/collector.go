package guard

import (
	"errors"

	"github.com/hashicorp/go-multierror"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Collector gathers every independent refusal and warning about one subject,
// so that all of them are reported together, never only the first.
// The zero value is ready to use; set Subject first.
type Collector struct {
	Subject  string
	refusals []*Refusal
	warnings []Warning
}

// Refuse records a refusal.
func (c *Collector) Refuse(reason Reason, fld *field.Path, bad any, format string, args ...any) {
	c.add(NewRefusal(reason, fld, bad, format, args...))
}

// Warn records a warning.
func (c *Collector) Warn(reason Reason, fld *field.Path, format string, args ...any) {
	w := NewWarning(reason, fld, format, args...)
	w.Subject = c.Subject
	c.warnings = append(c.warnings, w)
}

// AddWarning records a warning built by hand (with a Value, say), giving it
// the collector's subject when it has none.
func (c *Collector) AddWarning(w Warning) {
	if w.Subject == "" {
		w.Subject = c.Subject
	}
	c.warnings = append(c.warnings, w)
}

// Check records the refusals err carries (nil records nothing). Refusals
// without a subject get the collector's. It reports whether err was nil.
// A typed nil *Refusal counts as nil: it carries no refusal.
func (c *Collector) Check(err error) bool {
	if r, ok := err.(*Refusal); err == nil || ok && r == nil {
		return true
	}
	rs := Refusals(err)
	if len(rs) == 0 {
		// An error that is not a refusal is a bug of the caller; keep it
		// visible as a refusal rather than dropping it.
		rs = []*Refusal{{Reason: InvalidValue, Detail: err.Error()}}
	}
	for _, r := range rs {
		cp := *r
		c.add(&cp)
	}
	return false
}

func (c *Collector) add(r *Refusal) {
	if r.Subject == "" {
		r.Subject = c.Subject
	}
	c.refusals = append(c.refusals, r)
}

// Stamp sets the collector's subject and gives it to every refusal and
// warning recorded without one. A caller on a hot path records first and
// names the subject only when something was recorded.
func (c *Collector) Stamp(subject string) {
	c.Subject = subject
	for _, r := range c.refusals {
		if r.Subject == "" {
			r.Subject = subject
		}
	}
	for i := range c.warnings {
		if c.warnings[i].Subject == "" {
			c.warnings[i].Subject = subject
		}
	}
}

// Empty reports whether nothing was recorded.
func (c *Collector) Empty() bool { return len(c.refusals) == 0 && len(c.warnings) == 0 }

// Refused reports whether any refusal was recorded.
func (c *Collector) Refused() bool { return len(c.refusals) > 0 }

// Has reports whether a refusal of the reason was recorded.
func (c *Collector) Has(reason Reason) bool {
	for _, r := range c.refusals {
		if r.Reason == reason {
			return true
		}
	}
	return false
}

// Warnings returns the recorded warnings in the order they were made.
func (c *Collector) Warnings() []Warning { return c.warnings }

// Err returns the refusals as one error, nil when there are none.
func (c *Collector) Err() error { return Join(c.refusals...) }

// Join aggregates refusals into one error that errors.As and errors.Is see
// through. It returns a nil error (never a typed nil) when there are none;
// nil refusals are skipped, so Join((*Refusal)(nil)) is nil too.
func Join(refusals ...*Refusal) error {
	m := &multierror.Error{ErrorFormat: listFormat}
	for _, r := range refusals {
		if r != nil {
			m.Errors = append(m.Errors, r)
		}
	}
	switch len(m.Errors) {
	case 0:
		return nil
	case 1:
		return m.Errors[0]
	}
	return m
}

func listFormat(errs []error) string {
	s := ""
	for i, e := range errs {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}

// Refusals opens err into its refusals, in order: a single *Refusal, a
// go-multierror aggregate, or any error that wraps them (Unwrap() error or
// Unwrap() []error). It returns nil for a nil error.
func Refusals(err error) []*Refusal {
	var out []*Refusal
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if r, ok := e.(*Refusal); ok {
			if r != nil {
				out = append(out, r)
			}
			return
		}
		// Only e itself: errors.As would find an aggregate deeper in the
		// tree and skip the refusals beside it.
		if m, ok := e.(*multierror.Error); ok {
			for _, w := range m.Errors {
				walk(w)
			}
			return
		}
		if u, ok := e.(interface{ Unwrap() []error }); ok {
			for _, w := range u.Unwrap() {
				walk(w)
			}
			return
		}
		walk(errors.Unwrap(e))
	}
	walk(err)
	return out
}

// Reasons lists the reasons of the refusals in err, in order.
func Reasons(err error) []Reason {
	rs := Refusals(err)
	out := make([]Reason, len(rs))
	for i, r := range rs {
		out[i] = r.Reason
	}
	return out
}
