package guard

import (
	"encoding/json"
)

// Warning is a finding that lets the plan stand. It has the shape of a
// Refusal but is not an error, so it cannot be returned as one by mistake.
type Warning struct {
	Reason Reason
	Field  string
	// Kind is the kind of object a StateUnverified could not read
	// ("DataVolume"); "" for every other warning.
	Kind string
	// Cause says why a StateUnverified's kind is unknown, as the code that
	// read the cluster knows it: "forbidden: cannot list
	// storageclasses.storage.k8s.io", "not served: the API server serves
	// no cdi.kubevirt.io/v1beta1 datavolumes", "offline: no cluster state
	// was read". "" when no reader said (the planner alone cannot know).
	Cause   string
	Subject string
	Detail  string
}

// String reads "<subject>: <field>: <detail> (<reason>)".
func (w Warning) String() string { return render(w.Subject, w.Field, w.Detail, w.Reason) }

// MarshalJSON writes {"reason","field","message"}, the shape of every finding in
// the CLI's JSON output, and
// "kind" for a StateUnverified, and "cause" when a reader set one.
func (w Warning) MarshalJSON() ([]byte, error) {
	return json.Marshal(findingJSON{Reason: w.Reason, Field: w.Field, Message: w.String(), Kind: w.Kind, Cause: w.Cause})
}
