package guard

import (
	"encoding/json"
	"strings"

	"github.com/hashicorp/go-multierror"
)

// Refusals is every refusal of one plan, in the order they were made, in
// the manner of apimachinery's field.ErrorList. It is the error Plan and
// the decoders return, always of this one type: errors.As(err, &rs) opens
// it, errors.As(err, &r) finds a *Refusal in it, and errors.Is(err, reason)
// asks for a reason.
//
// Like field.ErrorList, an empty Refusals is not a nil error: return
// rs.Err(), which is nil when there are none.
type Refusals []*Refusal

// Err returns rs as an error, or nil when it holds no refusal (nil entries
// are not refusals).
func (rs Refusals) Err() error {
	for _, r := range rs {
		if r != nil {
			return rs
		}
	}
	return nil
}

// Error reads the refusals one per line, in order.
func (rs Refusals) Error() string {
	m := multierror.Error{Errors: rs.Unwrap(), ErrorFormat: lines}
	return m.Error()
}

// Unwrap lists the refusals as errors, for errors.Is and errors.As.
func (rs Refusals) Unwrap() []error {
	out := make([]error, 0, len(rs))
	for _, r := range rs {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// MarshalJSON writes a list, [] when empty.
func (rs Refusals) MarshalJSON() ([]byte, error) {
	if rs == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]*Refusal(rs))
}

func lines(errs []error) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Warnings is every warning of one plan, in the order they were made.
type Warnings []Warning

// MarshalJSON writes a list, [] when empty.
func (ws Warnings) MarshalJSON() ([]byte, error) {
	if ws == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]Warning(ws))
}
