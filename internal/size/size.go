// Package size parses the sizes the values hold: a pool's diskSize, a
// catalog's storage.
package size

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

// Parse parses a positive quantity, refusing anything else InvalidQuantity
// at fld, and a text longer than MaxLength InvalidValue, unparsed. For
// example "6Gi" and "6144Mi" parse to equal quantities; "", "0", "-1Gi"
// and "6 GB" are refused.
func Parse(s string, fld *field.Path) (resource.Quantity, guard.Refusals) {
	q, err := Quantity(s)
	switch {
	case errors.Is(err, ErrTooLong):
		return resource.Quantity{}, guard.Refusals{TooLong(s, fld)}
	case errors.Is(err, ErrUnbounded):
		return resource.Quantity{}, guard.Refusals{findings.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is no size any volume has (its magnitude is past 10^%d or below 10^-%d); use a size such as 20Gi", s, maxExponent, maxExponent)}
	case err != nil:
		return resource.Quantity{}, guard.Refusals{findings.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a Kubernetes quantity; use a size such as 20Gi", s)}
	case q.Sign() <= 0:
		return resource.Quantity{}, guard.Refusals{findings.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a positive size; use a size such as 20Gi", s)}
	}
	return q, nil
}

// MaxLength is the longest quantity text the library parses, in bytes:
// resource.ParseQuantity takes time that grows with the square of its
// input's length (two million digits take seconds), and no size a volume
// has needs more than a few dozen characters ("18446744073709551616Ki"
// is 22).
const MaxLength = 64

// ErrTooLong is Quantity's error for a text longer than MaxLength.
var ErrTooLong = fmt.Errorf("longer than the %d characters a quantity may have", MaxLength)

// TooLong is the refusal of a quantity text longer than MaxLength at fld:
// InvalidValue, naming the limit and carrying the text's first
// characters only.
func TooLong(s string, fld *field.Path) *guard.Refusal {
	short := Excerpt(s)
	return findings.NewRefusal(guard.InvalidValue, fld, short,
		"%s is %d characters long (%q): a quantity is at most %d characters, and none is parsed past that; use a size such as 20Gi", fld, len(s), short, MaxLength)
}

// Excerpt is s cut to MaxLength bytes (on a character's boundary) with
// "…" after it, for messages about a text too long to print whole; a
// shorter s is itself.
func Excerpt(s string) string {
	if len(s) <= MaxLength {
		return s
	}
	cut := MaxLength
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ErrUnbounded is Quantity's error for a quantity whose magnitude no
// volume has.
var ErrUnbounded = fmt.Errorf("a magnitude past 10^%d or below 10^-%d, which no volume has", maxExponent, maxExponent)

// Quantity is resource.ParseQuantity for quantities from input that the
// library compares: a text longer than MaxLength is ErrTooLong, unparsed;
// one whose magnitude is past 10^1000 ("1e1001") is
// ErrUnbounded, and so is one whose exponent is past ±(1000 + its
// mantissa's length) ("3e4444444444444", "1e-99999"), decided on its text
// before it is parsed. Quantity's parsing and its Cmp take time that grows
// with the exponent (the first parses for hours), so every quantity from
// values, a state file or a flag is read through it. A magnitude just below 10^-1000
// ("1e-1001") parses, and Kubernetes rounds it up to 1n as any fraction of
// a nano; "1e-1002" is refused on its text.
func Quantity(s string) (resource.Quantity, error) {
	if len(s) > MaxLength {
		return resource.Quantity{}, ErrTooLong
	}
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

// Check says, of the quantity text s (white space around it trimmed, as
// a Quantity's UnmarshalJSON trims it), what Quantity would refuse it for
// its size: ErrTooLong past MaxLength, ErrUnbounded for a magnitude no
// volume has, decided without parsing a long text. A reader of quantities
// it does not parse through Quantity (a JSON decoder's Quantity fields)
// checks their text with it first: resource.ParseQuantity takes seconds
// to hours on what it refuses. Text that is no quantity is nil (the
// parser says what is wrong with it); only a number with an exponent is
// parsed to say.
func Check(s string) error {
	s = strings.TrimSpace(s)
	switch {
	case len(s) > MaxLength:
		return ErrTooLong
	case hugeExponent(s):
		return ErrUnbounded
	case !strings.ContainsAny(s, "eE"):
		// Without an exponent, a number's magnitude is under its length
		// plus 18 (the E suffix).
		return nil
	}
	if _, err := Quantity(s); errors.Is(err, ErrUnbounded) {
		return err
	}
	return nil
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
