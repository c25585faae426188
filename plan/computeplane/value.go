package computeplane

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// Values reach Plan as Helm holds them: decoded YAML or JSON (float64, or
// json.Number when decoded with UseNumber, as DecodeValues does), or maps a
// Go caller built (any integer type). These helpers read a number of any of
// those representations.

// decimal is v's number written in decimal, so that resource.ParseQuantity
// reads it as Kubernetes reads an int-or-string quantity.
func decimal(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return n.String(), true
	case float64:
		return finite(n, 64)
	case float32:
		return finite(float64(n), 32)
	case int:
		return strconv.FormatInt(int64(n), 10), true
	case int8:
		return strconv.FormatInt(int64(n), 10), true
	case int16:
		return strconv.FormatInt(int64(n), 10), true
	case int32:
		return strconv.FormatInt(int64(n), 10), true
	case int64:
		return strconv.FormatInt(n, 10), true
	case uint:
		return strconv.FormatUint(uint64(n), 10), true
	case uint8:
		return strconv.FormatUint(uint64(n), 10), true
	case uint16:
		return strconv.FormatUint(uint64(n), 10), true
	case uint32:
		return strconv.FormatUint(uint64(n), 10), true
	case uint64:
		return strconv.FormatUint(n, 10), true
	}
	return "", false
}

// finite writes f in decimal; NaN and the infinities are no number a chart
// value can hold (JSON has none).
func finite(f float64, bits int) (string, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, bits), true
}

// integer is v as an int64 when v is a whole number that fits one: YAML's 3
// decodes as float64 3, which is a count; 2.5 is not.
func integer(v any) (int64, bool) {
	s, ok := decimal(v)
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// refuseType refuses a value the pool chart cannot read where want belongs.
func refuseType(v any, want kind, fld *field.Path, c *guard.Collector) {
	c.Refuse(guard.InvalidValue, fld, v, "holds %s; write %s here, the only type the chart reads", describe(v), want)
}

func (k kind) String() string {
	switch k {
	case text:
		return "a string"
	case scalar:
		return "a quantity (a string such as 20Gi, or a number)"
	case count:
		return "a non-negative whole number"
	case texts:
		return "a list of strings"
	case object:
		return "a map"
	case objects:
		return "a list of maps"
	}
	return fmt.Sprintf("kind %d", int(k))
}

// describe names the type of a decoded value as YAML calls it.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	}
	if d, ok := decimal(v); ok {
		return "the number " + d
	}
	return fmt.Sprintf("a %T", v)
}
