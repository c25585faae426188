// Package findings gathers the refusals and warnings of one subject (a pool,
// the catalog, a ComputePlane), so that every independent finding is
// reported together, never only the first.
package findings

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// Collector gathers findings in the order they are made. The zero value is
// ready to use; Subject names what they concern, now or later (Stamp).
type Collector struct {
	Subject  string
	refusals guard.Refusals
	warnings guard.Warnings
}

// Refuse records a refusal.
func (c *Collector) Refuse(reason guard.Reason, fld *field.Path, bad any, format string, args ...any) {
	c.add(NewRefusal(reason, fld, bad, format, args...))
}

// Warn records a warning.
func (c *Collector) Warn(reason guard.Reason, fld *field.Path, format string, args ...any) {
	c.AddWarning(NewWarning(reason, fld, format, args...))
}

// AddWarning records a warning built by hand (a StateUnverified with its
// Kind), giving it the collector's subject when it names none.
func (c *Collector) AddWarning(w guard.Warning) {
	if w.Subject == "" {
		w.Subject = c.Subject
	}
	c.warnings = append(c.warnings, w)
}

// Add records copies of the refusals of rs (a validator's result) and
// reports whether there were none.
func (c *Collector) Add(rs guard.Refusals) bool {
	ok := true
	for _, r := range rs {
		if r == nil {
			continue
		}
		cp := *r
		c.add(&cp)
		ok = false
	}
	return ok
}

func (c *Collector) add(r *guard.Refusal) {
	if r.Subject == "" {
		r.Subject = c.Subject
	}
	c.refusals = append(c.refusals, r)
}

// Merge records what o recorded, after what c has, giving each finding
// c's subject when it names none. o is not to be used afterwards: the
// refusals are not copied.
func (c *Collector) Merge(o *Collector) {
	for _, r := range o.refusals {
		c.add(r)
	}
	for _, w := range o.warnings {
		c.AddWarning(w)
	}
}

// Stamp sets the subject and gives it to every finding recorded without
// one. A caller on a hot path records first and names the subject only when
// something was recorded.
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

// Refused reports whether a refusal was recorded.
func (c *Collector) Refused() bool { return len(c.refusals) > 0 }

// Refusals returns the refusals recorded, nil when none.
func (c *Collector) Refusals() guard.Refusals { return c.refusals }

// Warnings returns the warnings recorded, nil when none.
func (c *Collector) Warnings() guard.Warnings { return c.warnings }
