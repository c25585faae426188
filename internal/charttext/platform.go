package charttext

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// ephemeralLimit is the virt-launcher's ephemeral-storage limit the define
// asks cozy-lib's resources.sanitize for ("2Gi"), in bytes as its toFloat
// reads it.
const (
	ephemeralLimit      = "2Gi"
	ephemeralLimitBytes = 2 << 30
)

// divisionPrecision is shopspring/decimal's DivisionPrecision, the places
// sprig's divf keeps.
const divisionPrecision = 16

// EphemeralRequest is the ephemeral-storage request cozy-lib's
// resources.sanitize derives from the 2Gi limit and the platform's
// ephemeral-storage allocation ratio: `divf 2147483648 ratio | int |
// toString`, sprig's divf dividing in decimal to 16 places, rounded half
// away from zero, then truncated to an integer. For example the chart's
// default ratio 40 gives "53687091". It reports false for a ratio divf
// cannot divide by (zero, infinite, not a number): the chart fails to
// render then.
func EphemeralRequest(ratio float64) (string, bool) {
	if ratio == 0 || math.IsInf(ratio, 0) || math.IsNaN(ratio) {
		return "", false
	}
	// decimal.NewFromFloat holds the float's shortest decimal.
	den, ok := new(big.Rat).SetString(strconv.FormatFloat(ratio, 'g', -1, 64))
	if !ok {
		return "", false
	}
	q := new(big.Rat).Quo(new(big.Rat).SetInt64(ephemeralLimitBytes), den)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(divisionPrecision), nil)
	scaled := new(big.Rat).Mul(q, new(big.Rat).SetInt(scale))
	whole := new(big.Int).Quo(scaled.Num(), scaled.Denom()) // toward zero
	rest := new(big.Rat).Sub(scaled, new(big.Rat).SetInt(whole))
	if rest.Abs(rest).Cmp(big.NewRat(1, 2)) >= 0 {
		whole.Add(whole, big.NewInt(int64(q.Sign())))
	}
	f, _ := new(big.Rat).SetFrac(whole, scale).Float64()
	return strconv.Itoa(int(f)), true
}

// Constraints is the platform's globalAppTopologySpreadConstraints as the
// define writes them: Helm's `fromYaml | toYaml` of the text, which must
// hold one YAML map (fromYaml of anything else writes its error into the
// template).
func Constraints(raw string) (string, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(raw), &m); err != nil {
		return "", err
	}
	return toYAML(m), nil
}

// PodResources is the virt-launcher's resources as the define writes them:
// cozy-lib's sanitize of the 2Gi ephemeral-storage limit (its request is
// ephemeralRequest, EphemeralRequest's), with podCpuLimit and
// podCpuRequest, as toString prints them, set into the limits and the
// requests when the pool sets them (nil when not), through toYaml.
func PodResources(ephemeralRequest string, cpuLimit, cpuRequest *string) string {
	limits := map[string]any{"ephemeral-storage": ephemeralLimit}
	requests := map[string]any{"ephemeral-storage": ephemeralRequest}
	if cpuLimit != nil {
		limits["cpu"] = *cpuLimit
	}
	if cpuRequest != nil {
		requests["cpu"] = *cpuRequest
	}
	return toYAML(map[string]any{"limits": limits, "requests": requests})
}

// toYAML is Helm's toYaml, which writes "" for what does not marshal.
func toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}
