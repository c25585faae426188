// Package size parses the sizes the values hold: a pool's diskSize, a
// catalog's storage.
package size

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// Parse parses a positive quantity, refusing anything else InvalidQuantity
// at fld. For example "6Gi" and "6144Mi" parse to equal quantities; "",
// "0", "-1Gi" and "6 GB" are refused.
func Parse(s string, fld *field.Path) (resource.Quantity, guard.Refusals) {
	q, err := Quantity(s)
	switch {
	case errors.Is(err, ErrUnbounded):
		return resource.Quantity{}, guard.Refusals{guard.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is no size any volume has (its magnitude is past 10^%d or below 10^-%d); use a size such as 20Gi", s, maxExponent, maxExponent)}
	case err != nil:
		return resource.Quantity{}, guard.Refusals{guard.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a Kubernetes quantity; use a size such as 20Gi", s)}
	case q.Sign() <= 0:
		return resource.Quantity{}, guard.Refusals{guard.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a positive size; use a size such as 20Gi", s)}
	}
	return q, nil
}

// ErrUnbounded is Quantity's error for a quantity whose magnitude no
// volume has.
var ErrUnbounded = fmt.Errorf("a magnitude past 10^%d or below 10^-%d, which no volume has", maxExponent, maxExponent)

// Quantity is resource.ParseQuantity for quantities from input that the
// library compares: one whose magnitude is past 10^1000 ("1e1001") is
// ErrUnbounded, and so is one whose exponent is past ±(1000 + its
// mantissa's length) ("3e4444444444444", "1e-99999"), decided on its text
// before it is parsed. Quantity's parsing and its Cmp take time that grows
// with the exponent (the first parses for hours), so every quantity from
// values, a state file or a flag is read through it. A magnitude just below 10^-1000
// ("1e-1001") parses, and Kubernetes rounds it up to 1n as any fraction of
// a nano; "1e-1002" is refused on its text.
func Quantity(s string) (resource.Quantity, error) {
	if hugeExponent(s) {
		return resource.Quantity{}, ErrUnbounded
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, err
	}
	if !Bounded(q) {
		return resource.Quantity{}, ErrUnbounded
	}
	return q, nil
}

// maxExponent bounds the decimal magnitude of a size the library compares.
const maxExponent = 1000

// Unbounded reports whether the quantity text s (white space around it
// trimmed) is one Quantity refuses ErrUnbounded: its magnitude is past
// 10^1000, or its exponent past what can be read in time, which
// resource.ParseQuantity (and a Quantity's UnmarshalJSON) would take hours
// on. A reader of quantities it does not parse through Quantity checks
// their text with it first. Text that is no quantity is not unbounded;
// only a number with an exponent, or of hundreds of digits, is parsed to
// say.
func Unbounded(s string) bool {
	s = strings.TrimSpace(s)
	if hugeExponent(s) {
		return true
	}
	if s == "" || !strings.ContainsRune("0123456789+-.", rune(s[0])) {
		return false
	}
	// Without an exponent, a number's magnitude is under its length plus
	// 18 (the E suffix).
	if len(s) < maxExponent-18 && !strings.ContainsAny(s, "eE") {
		return false
	}
	_, err := Quantity(s)
	return errors.Is(err, ErrUnbounded)
}

// hugeExponent reports whether s ends in a decimal exponent so far past
// 10^±maxExponent that its mantissa (shorter than the exponent's value
// less maxExponent) cannot bring the magnitude back within it
// ("3e4444444444444"): resource.ParseQuantity takes time that grows with
// such an exponent's value, so it is decided on the text, before anything
// parses it. Any other exponent is parsed, and Bounded
// decides ("1e1000" and "0.01e1002" are within; "1e1001" is not).
func hugeExponent(s string) bool {
	i := len(s) - 1
	for i >= 0 && s[i] != 'e' && s[i] != 'E' {
		i-- // a byte loop: LastIndexAny costs more than a size's plan
	}
	if i < 0 || i == len(s)-1 {
		return false
	}
	exp := strings.TrimLeft(strings.TrimLeft(s[i+1:], "+-"), "0")
	if len(exp) > 18 {
		for _, c := range exp {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true // past any length a string has
	}
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return false // no exponent resource.ParseQuantity reads
	}
	// A mantissa (the i characters before the exponent) shifts the
	// magnitude by fewer places than it has characters.
	return e > maxExponent+int64(i)
}

// Bounded reports whether q's decimal magnitude is within 10^±1000, read
// from its digits and scale without arithmetic. Quantity's Cmp and
// arithmetic take time that grows with the exponent ("3e4444444444444"
// parses in microseconds and compares for hours), so a size from input is
// checked before anything compares it.
func Bounded(q resource.Quantity) bool {
	if _, ok := q.AsInt64(); ok {
		return true // within 10^19: most sizes, read without a big number
	}
	d := q.AsDec()
	digits := int64(len(d.UnscaledBig().Text(10)))
	if d.UnscaledBig().Sign() < 0 {
		digits--
	}
	exp := digits - 1 - int64(d.Scale()) // the power of ten of its leading digit
	return exp <= maxExponent && exp >= -maxExponent
}
