package guard_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/hashicorp/go-multierror"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// finding is what tests compare: the reason, the field and the subject, never
// the message text.
type finding struct {
	Reason  guard.Reason
	Field   string
	Subject string
}

func findings(err error) []finding {
	var out []finding
	for _, r := range guard.Refusals(err) {
		out = append(out, finding{r.Reason, r.Field, r.Subject})
	}
	return out
}

func refusal(reason guard.Reason, path string) *guard.Refusal {
	return guard.NewRefusal(reason, field.NewPath(path), "bad", "detail of %s", reason)
}

func TestCollectorGathersEveryRefusal(t *testing.T) {
	c := guard.Collector{Subject: "pool tenant-a/demo-md0"}
	c.Refuse(guard.ConflictingImageSource, field.NewPath("osImage"), nil, "both set")
	c.Warn(guard.StateUnverified, field.NewPath("storageClass"), "StorageClasses unknown")
	c.Check(nil)
	c.Check(guard.Join(
		refusal(guard.InvalidSchematicID, "osImage.builtin.schematicID"),
		refusal(guard.InvalidVersion, "osImage.builtin.version"),
	))
	c.Refuse(guard.InvalidQuantity, field.NewPath("diskSize"), "x", "not a quantity")

	want := []finding{
		{guard.ConflictingImageSource, "osImage", "pool tenant-a/demo-md0"},
		{guard.InvalidSchematicID, "osImage.builtin.schematicID", "pool tenant-a/demo-md0"},
		{guard.InvalidVersion, "osImage.builtin.version", "pool tenant-a/demo-md0"},
		{guard.InvalidQuantity, "diskSize", "pool tenant-a/demo-md0"},
	}
	if got := findings(c.Err()); !reflect.DeepEqual(got, want) {
		t.Errorf("refusals, in the order they were made:\nwant %v\ngot  %v", want, got)
	}
	if !c.Refused() {
		t.Error("Refused() = false with four refusals recorded")
	}
	ws := c.Warnings()
	if len(ws) != 1 || ws[0].Reason != guard.StateUnverified || ws[0].Field != "storageClass" || ws[0].Subject != c.Subject {
		t.Errorf("warnings: want one StateUnverified at storageClass for the subject, got %+v", ws)
	}
}

func TestCollectorNothingRecorded(t *testing.T) {
	var c guard.Collector
	if err := c.Err(); err != nil {
		t.Errorf("the zero Collector must return a nil error (never a typed nil), got %#v", err)
	}
	if c.Refused() || c.Has(guard.InvalidValue) || len(c.Warnings()) != 0 {
		t.Error("the zero Collector must hold no refusal and no warning")
	}
}

func TestCollectorHas(t *testing.T) {
	c := guard.Collector{Subject: "s"}
	c.Refuse(guard.StorageClassMismatch, field.NewPath("storageClass"), "a", "a is not b")
	c.Warn(guard.GoldenPending, field.NewPath("osImage", "builtin"), "importing")
	cases := map[string]struct {
		reason string
		ask    guard.Reason
		want   bool
	}{
		"recorded refusal": {"a refusal that was recorded is found", guard.StorageClassMismatch, true},
		"other refusal":    {"a neighbouring reason that was not recorded is not", guard.FrozenStorageClassConflict, false},
		"warning":          {"Has looks at refusals only: a warning is not a refusal", guard.GoldenPending, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := c.Has(tc.ask); got != tc.want {
				t.Errorf("%s: Has(%s) = %v, want %v", tc.reason, tc.ask, got, tc.want)
			}
		})
	}
}

func TestCollectorCheck(t *testing.T) {
	own := refusal(guard.GoldenNotInCatalog, "osImage.builtin")
	own.Subject = "pool other/x-md1"
	cases := map[string]struct {
		reason string
		err    error
		ok     bool
		want   []finding
	}{
		"nil": {
			reason: "nil records nothing and reports ok",
			err:    nil, ok: true,
		},
		"typed nil": {
			reason: "a typed nil *Refusal carries no refusal: the typed-nil trap must not become a refusal or a panic",
			err:    (*guard.Refusal)(nil), ok: true,
		},
		"one refusal": {
			reason: "a single refusal takes the collector's subject",
			err:    refusal(guard.InvalidVersion, "talos.version"),
			want:   []finding{{guard.InvalidVersion, "talos.version", "subj"}},
		},
		"own subject": {
			reason: "a refusal that already names its subject keeps it",
			err:    own,
			want:   []finding{{guard.GoldenNotInCatalog, "osImage.builtin", "pool other/x-md1"}},
		},
		"aggregate": {
			reason: "every refusal of an aggregate is recorded, in order",
			err:    guard.Join(refusal(guard.InvalidVersion, "a"), refusal(guard.InvalidSchematicID, "b")),
			want:   []finding{{guard.InvalidVersion, "a", "subj"}, {guard.InvalidSchematicID, "b", "subj"}},
		},
		"wrapped": {
			reason: "a refusal wrapped with %w is still found",
			err:    fmt.Errorf("entry: %w", refusal(guard.InvalidQuantity, "images[0].storage")),
			want:   []finding{{guard.InvalidQuantity, "images[0].storage", "subj"}},
		},
		"errors.Join": {
			reason: "the standard library's Unwrap() []error is opened too",
			err:    errors.Join(refusal(guard.InvalidVersion, "a"), refusal(guard.InvalidSchematicID, "b")),
			want:   []finding{{guard.InvalidVersion, "a", "subj"}, {guard.InvalidSchematicID, "b", "subj"}},
		},
		"plain error": {
			reason: "an error that is not a refusal is a caller bug: it stays visible as InvalidValue rather than being dropped",
			err:    errors.New("boom"),
			want:   []finding{{guard.InvalidValue, "", "subj"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := guard.Collector{Subject: "subj"}
			if ok := c.Check(tc.err); ok != tc.ok {
				t.Errorf("%s: Check ok = %v, want %v", tc.reason, ok, tc.ok)
			}
			if got := findings(c.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\nwant %v\ngot  %v", tc.reason, tc.want, got)
			}
		})
	}
}

func TestCollectorCheckCopies(t *testing.T) {
	r := refusal(guard.InvalidVersion, "talos.version")
	c := guard.Collector{Subject: "pool a/b-c"}
	c.Check(r)
	if r.Subject != "" {
		t.Errorf("Check must not write the subject into the caller's refusal (shared between pools), got %q", r.Subject)
	}
}

func TestJoin(t *testing.T) {
	a, b := refusal(guard.InvalidVersion, "a"), refusal(guard.InvalidSchematicID, "b")
	cases := map[string]struct {
		reason string
		in     []*guard.Refusal
		want   []finding
		single bool
	}{
		"none":     {reason: "no refusal is a nil error", in: nil},
		"nil only": {reason: "nil refusals are skipped, so the result is a nil error, not a typed nil", in: []*guard.Refusal{nil, nil}},
		"one":      {reason: "one refusal is returned as itself", in: []*guard.Refusal{a}, want: []finding{{a.Reason, "a", ""}}, single: true},
		"one and nil": {
			reason: "a nil among refusals is skipped",
			in:     []*guard.Refusal{nil, a}, want: []finding{{a.Reason, "a", ""}}, single: true,
		},
		"two": {reason: "two refusals are aggregated in order", in: []*guard.Refusal{a, b}, want: []finding{{a.Reason, "a", ""}, {b.Reason, "b", ""}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := guard.Join(tc.in...)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("%s: got %#v", tc.reason, err)
				}
				return
			}
			if got := findings(err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\nwant %v\ngot  %v", tc.reason, tc.want, got)
			}
			if _, ok := err.(*guard.Refusal); ok != tc.single {
				t.Errorf("%s: error is a bare *Refusal = %v, want %v", tc.reason, ok, tc.single)
			}
		})
	}
}

// TestErrorsFindEveryRefusal: errors.As and errors.Is see through every shape
// an aggregate takes on its way to a caller.
func TestErrorsFindEveryRefusal(t *testing.T) {
	rs := []*guard.Refusal{
		refusal(guard.StorageClassMismatch, "storageClass"),
		refusal(guard.DiskSmallerThanGolden, "diskSize"),
		refusal(guard.GoldenImportFailed, "osImage.builtin"),
	}
	joined := guard.Join(rs...)
	shapes := map[string]error{
		"Join":                   joined,
		"wrapped Join":           fmt.Errorf("pool a/b-c: %w", joined),
		"multierror of singles":  multierror.Append(nil, rs[0], rs[1], rs[2]),
		"aggregate in aggregate": multierror.Append(&multierror.Error{Errors: []error{guard.Join(rs[0], rs[1])}}, rs[2]),
		"aggregate beside one":   errors.Join(rs[0], fmt.Errorf("w: %w", guard.Join(rs[1], rs[2]))),
	}

	for name, err := range shapes {
		t.Run(name, func(t *testing.T) {
			for _, r := range rs {
				if !errors.Is(err, &guard.Refusal{Reason: r.Reason}) {
					t.Errorf("errors.Is by reason %s: not found", r.Reason)
				}
				if !errors.Is(err, &guard.Refusal{Reason: r.Reason, Field: r.Field}) {
					t.Errorf("errors.Is by reason %s and field %s: not found", r.Reason, r.Field)
				}
				if errors.Is(err, &guard.Refusal{Reason: r.Reason, Field: "elsewhere"}) {
					t.Errorf("errors.Is by reason %s at another field: found, want not", r.Reason)
				}
				if !errors.Is(err, r) {
					t.Errorf("errors.Is by identity of %s: not found", r.Reason)
				}
			}
			if errors.Is(err, &guard.Refusal{Reason: guard.HostAssistedClone}) {
				t.Error("errors.Is found a reason that is not in the aggregate")
			}
			var first *guard.Refusal
			if !errors.As(err, &first) || first != rs[0] {
				t.Errorf("errors.As must open the first refusal, got %v", first)
			}
			want := []guard.Reason{guard.StorageClassMismatch, guard.DiskSmallerThanGolden, guard.GoldenImportFailed}
			if got := guard.Reasons(err); !reflect.DeepEqual(got, want) {
				t.Errorf("Reasons: want %v, got %v", want, got)
			}
		})
	}
}

func TestRefusalsAndReasonsOfNothing(t *testing.T) {
	cases := map[string]struct {
		reason string
		err    error
	}{
		"nil":         {"a nil error has no refusals", nil},
		"typed nil":   {"a typed nil *Refusal has none either, so Reasons cannot panic on it", (*guard.Refusal)(nil)},
		"plain error": {"an error that is not a refusal has none", errors.New("x")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if rs := guard.Refusals(tc.err); len(rs) != 0 {
				t.Errorf("%s: Refusals = %v", tc.reason, rs)
			}
			if rs := guard.Reasons(tc.err); len(rs) != 0 {
				t.Errorf("%s: Reasons = %v", tc.reason, rs)
			}
		})
	}
}
