package cli

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

// byteSize is a number of bytes, as --max-input-bytes takes it: an integer
// (268435456) or a quantity (256Mi, 1G).
type byteSize int64

// maxQuantityText bounds the text of a quantity before it is parsed:
// resource.ParseQuantity takes time quadratic in its length.
const maxQuantityText = 64

func (b *byteSize) Set(s string) error {
	if len(s) > maxQuantityText {
		return fmt.Errorf("%d characters is no size (at most %d)", len(s), maxQuantityText)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 1 {
			return fmt.Errorf("%d is not a positive number of bytes", n)
		}
		*b = byteSize(n)
		return nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("%q is not a number of bytes or a quantity such as 512Mi", s)
	}
	n, ok := q.AsInt64()
	if !ok || n < 1 {
		return fmt.Errorf("%q is not a positive whole number of bytes", s)
	}
	*b = byteSize(n)
	return nil
}

// String is the size in the largest binary unit that holds it whole
// (256Mi), or in bytes.
func (b *byteSize) String() string {
	n := int64(*b)
	if n == 0 {
		n = defaultMaxInput
	}
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"Gi", 30}, {"Mi", 20}, {"Ki", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Type names the flag's value in help.
func (b *byteSize) Type() string { return "bytes" }
