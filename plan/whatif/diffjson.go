package whatif

import (
	"encoding/json"
	"strconv"
)

// poolDiffJSON is a PoolDiff's JSON shape.
type poolDiffJSON struct {
	Namespace string          `json:"namespace"`
	Name      string          `json:"name"`
	Rolls     bool            `json:"rolls"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
}

// MarshalJSON writes {"namespace","name","rolls","before","after"}, each
// side a plan entry with its "kubevirtMachineTemplate", "neededGolden" and
// "goldenState" (and "kubernetesVersion" where the pool's values set it),
// the side before also its "workers" (null when they were not counted);
// a side is null where the pool is not there.
func (p PoolDiff) MarshalJSON() ([]byte, error) {
	out := poolDiffJSON{Namespace: p.Namespace, Name: p.Name, Rolls: p.Rolls, Before: json.RawMessage("null"), After: json.RawMessage("null")}
	var err error
	if p.Before != nil {
		workers := json.RawMessage("null")
		if p.Workers != nil {
			workers = json.RawMessage(strconv.Itoa(*p.Workers))
		}
		if out.Before, err = p.Before.marshal(workers); err != nil {
			return nil, err
		}
	}
	if p.After != nil {
		if out.After, err = p.After.marshal(nil); err != nil {
			return nil, err
		}
	}
	return json.Marshal(out)
}

// templateJSON is a TemplateName's JSON shape: {"name","from"} for a
// known name, {"name":"","unknown"} for one that is not.
type templateJSON struct {
	Name    string       `json:"name"`
	From    TemplateFrom `json:"from,omitempty"`
	Unknown string       `json:"unknown,omitempty"`
}

// marshal writes the side's plan entry with its template and golden state
// (and workers, when given) after the entry's own keys.
func (s *Side) marshal(workers json.RawMessage) (json.RawMessage, error) {
	entry, err := json.Marshal(s.Result)
	if err != nil {
		return nil, err
	}
	extra := struct {
		Template          templateJSON    `json:"kubevirtMachineTemplate"`
		NeededGolden      string          `json:"neededGolden"`
		GoldenState       GoldenState     `json:"goldenState"`
		KubernetesVersion string          `json:"kubernetesVersion,omitempty"`
		Workers           json.RawMessage `json:"workers,omitempty"`
	}{templateJSON(s.Template), s.NeededGolden, s.GoldenState, s.KubernetesVersion, workers}
	more, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	// Both are objects: join them, the entry's keys first.
	out := make([]byte, 0, len(entry)+len(more))
	out = append(out, entry[:len(entry)-1]...)
	out = append(out, ',')
	return append(out, more[1:]...), nil
}
