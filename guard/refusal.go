package guard

import (
	"encoding/json"
)

// Refusal is a plan the library will not make. It names its reason, the
// values field it is about, the value found there, what it concerns (a pool
// or a catalog entry) and a detail that says both sides of any mismatch and
// the supported way out.
type Refusal struct {
	Reason Reason
	// Field is the values path, such as osImage.builtin.version or
	// images[2].storage; "" for a refusal of the whole subject.
	Field    string
	BadValue any
	// Subject names what was refused: "pool tenant-a/demo-md0", "catalog".
	Subject string
	Detail  string
}

// Error reads "<subject>: <field>: <detail> (<reason>)". A nil *Refusal
// reads "<nil refusal>" rather than panic.
func (r *Refusal) Error() string {
	if r == nil {
		return "<nil refusal>"
	}
	return render(r.Subject, r.Field, r.Detail, r.Reason)
}

// Is reports whether target is r's Reason, so that
// errors.Is(err, guard.StorageClassMismatch) finds a refusal of that reason
// in any aggregate. A nil *Refusal matches nothing.
func (r *Refusal) Is(target error) bool {
	reason, ok := target.(Reason)
	return ok && r != nil && reason == r.Reason
}

// MarshalJSON writes {"reason","field","message"}, the shape of every finding in
// the CLI's JSON output, the
// message naming the subject.
func (r *Refusal) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return json.Marshal(findingJSON{Reason: r.Reason, Field: r.Field, Message: r.Error()})
}

// findingJSON is a refusal or a warning as the JSON outputs write it.
type findingJSON struct {
	Reason  Reason `json:"reason"`
	Field   string `json:"field"`
	Message string `json:"message"`
	// Kind is the kind a StateUnverified could not read.
	Kind string `json:"kind,omitempty"`
	// Cause is why that kind is unknown, when a reader said.
	Cause string `json:"cause,omitempty"`
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
