package guard

import (
	"encoding/json"
	"strings"

	"github.com/hashicorp/go-multierror"
)

// Refusals is every refusal of one plan, in the order they were made, in
// the manner of apimachinery's field.ErrorList. The planner's results hold
// it as data; as an error it is Err's, which Plan and the decoders return:
// errors.Is(err, reason) asks for a reason, errors.As(err, &r) finds the
// first *Refusal, and the error unwraps, as errors.Join's does, to each
// refusal in order.
//
// Refusals is not an error itself, so an empty list cannot be returned as
// a non-nil error by mistake: return rs.Err(), which is nil when there are
// none.
type Refusals []*Refusal

// Err returns rs as an error, or nil when it holds no refusal (nil entries
// are not refusals). The error reads the refusals one per line, in order,
// and is of one dynamic type whatever their count.
func (rs Refusals) Err() error {
	var out refused
	for _, r := range rs {
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// refused is the error of Refusals.Err: its refusals, none of them nil.
type refused []error

func (e refused) Error() string {
	m := multierror.Error{Errors: e, ErrorFormat: lines}
	return m.Error()
}

// Unwrap lists the refusals as errors, for errors.Is and errors.As.
func (e refused) Unwrap() []error { return e }

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
