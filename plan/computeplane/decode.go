package computeplane

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
)

// DecodeValues reads ComputePlane values from a YAML (or JSON) document, the
// VALUES.yaml of `worker-image computeplane -f`. Numbers are kept as written
// (json.Number), so a pool release gets maxReplicas: 3, not 3.0. An empty
// document, or null, is values without anything set.
//
// An error means the input is unusable (not YAML, or not a map of values),
// never a refusal: Plan judges the values themselves.
func DecodeValues(data []byte) (map[string]any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v, useNumber); err != nil {
		return nil, fmt.Errorf("computeplane values: %w", err)
	}
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	}
	return nil, fmt.Errorf("computeplane values: the document is %s, not a map of values", chartvalues.Describe(v))
}

func useNumber(d *json.Decoder) *json.Decoder {
	d.UseNumber()
	return d
}
