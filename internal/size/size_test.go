package size_test

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
)

// These cases were catalog's while it parsed its own sizes; the pool's
// diskSize and the catalog's storage share the rule now.
func TestParse(t *testing.T) {
	fld := field.NewPath("images").Index(2).Child("storage")
	cases := map[string]struct {
		reason string
		in     string
		want   string // the quantity; "" for refused
	}{
		"binary":         {"a binary suffix", "6Gi", "6Gi"},
		"other spelling": {"6144Mi is 6Gi, as a quantity", "6144Mi", "6Gi"},
		"decimal":        {"a decimal suffix", "20G", "20G"},
		"bytes":          {"a plain number is bytes", "21474836480", "20Gi"},
		"one byte":       {"the smallest positive size", "1", "1"},
		"fraction":       {"a fraction of a unit that is whole bytes", "1.5Gi", "1536Mi"},
		"exponent":       {"an exponent is a quantity too", "2e9", "2G"},
		"empty":          {"empty is no size (the caller has already fallen back to the default)", "", ""},
		"zero":           {"a zero size is refused", "0", ""},
		"zero unit":      {"zero with a unit is still zero", "0Gi", ""},
		"negative":       {"a negative size is refused", "-1Gi", ""},
		"space":          {"a space inside is not a quantity", "6 GB", ""},
		"unit only":      {"a unit without a number", "Gi", ""},
		"wrong case":     {"suffixes are case-sensitive: gi is not one", "6gi", ""},
		"padded":         {"white space is refused, not trimmed", " 6Gi", ""},
		"huge exponent":  {"a magnitude no volume has, which Quantity compares for hours", "3e4444444444444", ""},
		"large but fine": {"10^30 is still compared", "1e30", "1e30"},
		"at the bound":   {"a magnitude of 10^1000 is the largest compared", "1e1000", "1e1000"},
		"mantissa shift": {"a mantissa below one brings a longer exponent back to 10^1000", "0.01e1002", "1e1000"},
		"past the bound": {"a magnitude of 10^1001 is no size", "1e1001", ""},
		"shift past":     {"a mantissa above one takes an exponent of 999 past the bound (9.99e1001)", "999e999", ""},
		"tiny":           {"a magnitude below 10^-1000 parses, rounded up to a nano as Kubernetes does", "1e-1001", "1n"},
		"tiny, long":     {"an exponent far past -1000 is refused on its text (Kubernetes takes hours to read it)", "1e-99999", ""},
		"64 characters":  {"the longest text parsed: 10^63", "1" + strings.Repeat("0", 63), "1e63"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q, rs := size.Parse(tc.in, fld)
			if tc.want != "" {
				if rs != nil {
					t.Fatalf("%s: %q refused: %v", tc.reason, tc.in, rs)
				}
				if want := resource.MustParse(tc.want); q.Cmp(want) != 0 {
					t.Errorf("%s: %q parsed as %s, want %s", tc.reason, tc.in, q.String(), want.String())
				}
				return
			}
			if len(rs) != 1 {
				t.Fatalf("%s: %q: want one refusal, got %v", tc.reason, tc.in, rs)
			}
			if r := rs[0]; r.Reason != guard.InvalidQuantity || r.Field != fld.String() || r.BadValue != tc.in {
				t.Errorf("%s: %q: got %s at %s with %v, want InvalidQuantity at %s with the input", tc.reason, tc.in, r.Reason, r.Field, r.BadValue, fld)
			}
			if !errors.Is(rs.Err(), guard.InvalidQuantity) {
				t.Errorf("%s: errors.Is does not find InvalidQuantity", tc.reason)
			}
			if !q.IsZero() {
				t.Errorf("%s: a refused size is the zero quantity, got %s", tc.reason, q.String())
			}
		})
	}
}

// TestParseTooLong: a text past 64 characters is refused InvalidValue at
// its field before anything parses it (resource.ParseQuantity is
// quadratic in the length), the message naming the limit and the refusal
// carrying only the text's start; 64 characters parse (TestParse).
func TestParseTooLong(t *testing.T) {
	fld := field.NewPath("diskSize")
	for _, s := range []string{"1" + strings.Repeat("0", 64), strings.Repeat("9", 2_000_000), strings.Repeat("é", 40)} {
		q, rs := size.Parse(s, fld)
		if len(rs) != 1 || rs[0].Reason != guard.InvalidValue || rs[0].Field != "diskSize" || !q.IsZero() {
			t.Fatalf("%.20q (%d bytes): %v, %s; want one InvalidValue at diskSize", s, len(s), rs, q.String())
		}
		if !strings.Contains(rs[0].Detail, "at most 64 characters") {
			t.Errorf("the message does not name the limit: %s", rs[0].Detail)
		}
		if bad := rs[0].BadValue.(string); len(bad) > size.MaxLength+len("…") || !strings.HasPrefix(s, strings.TrimSuffix(bad, "…")) {
			t.Errorf("the refusal carries %d bytes %.20q, not the text's start", len(bad), bad)
		}
		if _, err := size.Quantity(s); !errors.Is(err, size.ErrTooLong) {
			t.Errorf("Quantity(%.20q): %v, want ErrTooLong", s, err)
		}
	}
}

// BenchmarkParseTooLong: a diskSize of two million digits is refused on its
// length, in the time of a short one (resource.ParseQuantity took seconds).
func BenchmarkParseTooLong(b *testing.B) {
	huge := strings.Repeat("9", 2_000_000)
	fld := field.NewPath("diskSize")
	for b.Loop() {
		if _, rs := size.Parse(huge, fld); rs == nil {
			b.Fatal("accepted")
		}
	}
}

// FuzzParse: a size is a positive quantity equal to what Kubernetes
// parses, or one InvalidQuantity refusal at its field carrying the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"6Gi", "6144Mi", "0", "-1Gi", "6 GB", "", "1e30", "0.1", "3e4444444444444"} {
		f.Add(s)
	}
	fld := field.NewPath("diskSize")
	// An exponent past ±(1000 + its mantissa's length): Parse refuses it
	// on its text, and resource.ParseQuantity takes time that grows with
	// its value.
	exponent := regexp.MustCompile(`[eE]([+-]?[0-9]+)$`)
	f.Fuzz(func(t *testing.T, s string) {
		q, rs := size.Parse(s, fld)
		if len(s) > size.MaxLength {
			if len(rs) != 1 || rs[0].Reason != guard.InvalidValue || rs[0].Field != fld.String() {
				t.Fatalf("%.20q (%d bytes): %v; want InvalidValue, unparsed", s, len(s), rs)
			}
			return
		}
		if m := exponent.FindStringSubmatchIndex(s); m != nil {
			mantissa := int64(m[0])
			if e, err := strconv.ParseInt(s[m[2]:m[3]], 10, 64); err != nil || e > 1000+mantissa || e < -(1000+mantissa) {
				if rs == nil {
					t.Fatalf("%q: an exponent past ±(1000 + its mantissa's length) is accepted", s)
				}
				return
			}
		}
		k, kerr := resource.ParseQuantity(s)
		if rs != nil {
			if len(rs) != 1 || rs[0].Reason != guard.InvalidQuantity || rs[0].Field != fld.String() || rs[0].BadValue != s {
				t.Fatalf("%q: %v", s, rs)
			}
			if kerr == nil && k.Sign() > 0 && size.Bounded(k) {
				t.Fatalf("%q is a positive quantity, refused", s)
			}
			return
		}
		if kerr != nil || q.Sign() <= 0 || q.Cmp(k) != 0 {
			t.Fatalf("%q accepted as %s; Kubernetes reads %s (%v)", s, q.String(), k.String(), kerr)
		}
	})
}

// TestCheck: a reader's check of quantity text it does not parse through
// Quantity answers as Quantity does: ErrUnbounded exactly where Quantity
// refuses that, ErrTooLong past 64 characters, nil for any other text,
// quantity or not.
func TestCheck(t *testing.T) {
	digits := func(n int) string { return strings.Repeat("9", n) }
	cases := map[string]error{
		"3e4444444444444": size.ErrUnbounded, "1e1001": size.ErrUnbounded, " 1e1001\n": size.ErrUnbounded, "1e-99999": size.ErrUnbounded,
		"-1e1001": size.ErrUnbounded, "999e999": size.ErrUnbounded,
		digits(65): size.ErrTooLong, digits(2_000_000): size.ErrTooLong, " " + digits(64) + " ": nil, digits(64): nil,
		"1e1000": nil, "0.01e1002": nil, "20Gi": nil, "7Ei": nil, "12345": nil,
		"": nil, "replicated": nil, "e5": nil, "1e1001x": nil,
	}
	for in, want := range cases {
		got := size.Check(in)
		if got != want {
			t.Errorf("Check(%.20q) = %v, want %v", in, got, want)
		}
		if _, err := size.Quantity(strings.TrimSpace(in)); want != nil && !errors.Is(err, want) {
			t.Errorf("Quantity(%.20q) = %v, Check says %v", in, err, want)
		}
	}
}
