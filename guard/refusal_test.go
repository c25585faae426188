package guard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

func TestMessagesNameTheirSubjectFieldAndReason(t *testing.T) {
	r := &guard.Refusal{Reason: guard.DiskSmallerThanGolden, Field: "diskSize", Subject: "pool tenant-a/demo-md0", Detail: "1Gi is below 6Gi; set diskSize to 6Gi or more"}
	assert.Equal(t, "pool tenant-a/demo-md0: diskSize: 1Gi is below 6Gi; set diskSize to 6Gi or more (DiskSmallerThanGolden)", r.Error())
	w := guard.Warning{Reason: guard.GoldenPending, Field: "osImage.builtin", Subject: "pool tenant-a/demo-md0", Detail: "importing"}
	assert.Equal(t, "pool tenant-a/demo-md0: osImage.builtin: importing (GoldenPending)", w.String())
	bare := &guard.Refusal{Reason: guard.MissingIngressPool, Detail: "no ingress"}
	assert.Equal(t, "no ingress (MissingIngressPool)", bare.Error(), "neighbour: no subject and no field leave only the detail and the reason")
}

// errors.Is(err, reason) is the one way to ask for a reason: it finds a
// refusal in an aggregate, however wrapped.
func TestErrorsIsAsksForAReason(t *testing.T) {
	a := findings.NewRefusal(guard.StorageClassMismatch, field.NewPath("storageClass"), "a", "a is not b")
	b := findings.NewRefusal(guard.DiskSmallerThanGolden, field.NewPath("diskSize"), "1Gi", "too small")
	cases := map[string]struct {
		reason string
		err    error
		target error
		want   bool
	}{
		"one":            {"a refusal is its reason", a, guard.StorageClassMismatch, true},
		"neighbour":      {"a neighbouring reason does not match", a, guard.FrozenStorageClassConflict, false},
		"list":           {"the second of a list is found", guard.Refusals{a, b}.Err(), guard.DiskSmallerThanGolden, true},
		"wrapped list":   {"a wrapped list is opened", fmt.Errorf("plan: %w", guard.Refusals{a, b}.Err()), guard.DiskSmallerThanGolden, true},
		"joined":         {"errors.Join is opened", errors.Join(errors.New("x"), guard.Refusals{b}.Err()), guard.DiskSmallerThanGolden, true},
		"typed nil":      {"a typed nil *Refusal in an errors.Join matches nothing and does not panic", errors.Join((*guard.Refusal)(nil)), guard.StorageClassMismatch, false},
		"plain error":    {"a plain error with the reason's text is not a refusal", errors.New("StorageClassMismatch"), guard.StorageClassMismatch, false},
		"missing reason": {"a list without the reason does not match", guard.Refusals{a}.Err(), guard.DiskSmallerThanGolden, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, errors.Is(tc.err, tc.target), tc.reason)
		})
	}
}

func TestTheErrorUnwrapsToEachRefusal(t *testing.T) {
	a := findings.NewRefusal(guard.StorageClassMismatch, field.NewPath("storageClass"), "a", "a is not b")
	b := findings.NewRefusal(guard.DiskSmallerThanGolden, field.NewPath("diskSize"), "1Gi", "too small")
	err := fmt.Errorf("planning: %w", guard.Refusals{a, b}.Err())

	assert.Equal(t, guard.Refusals{a, b}, fixtures.Refusals(err), "the error unwraps to each refusal, in order")
	assert.True(t, errors.Is(err, guard.DiskSmallerThanGolden))
	var first *guard.Refusal
	require.True(t, errors.As(err, &first))
	assert.Same(t, a, first)
}

// The aggregate is one type whatever the count, and nil only when empty.
func TestRefusalsErr(t *testing.T) {
	a := findings.NewRefusal(guard.InvalidVersion, field.NewPath("talos", "version"), "1.2", "not a release")
	assert.Nil(t, guard.Refusals(nil).Err(), "none is a nil error, never a typed nil")
	assert.Nil(t, guard.Refusals{}.Err())
	assert.Nil(t, guard.Refusals{nil}.Err(), "a nil entry is no refusal")
	b := findings.NewRefusal(guard.InvalidSchematicID, field.NewPath("talos", "schematicID"), "X", "not lowercase")
	one, two := guard.Refusals{a}.Err(), guard.Refusals{a, b}.Err()
	assert.IsType(t, two, one, "neighbour: one refusal is the list, not the bare refusal")
	_, bare := one.(*guard.Refusal)
	assert.False(t, bare)
}

// TestRefusalsReadOnePerLine: several refusals read as their messages, one
// per line, in order, so that a CLI prints them as a list.
func TestRefusalsReadOnePerLine(t *testing.T) {
	a := findings.NewRefusal(guard.InvalidVersion, field.NewPath("talos", "version"), "1.2", "not a release")
	b := findings.NewRefusal(guard.InvalidSchematicID, field.NewPath("talos", "schematicID"), "X", "not lowercase")
	assert.Equal(t, a.Error()+"\n"+b.Error(), guard.Refusals{a, nil, b}.Err().Error())
	assert.Equal(t, a.Error(), guard.Refusals{a}.Err().Error(), "neighbour: one refusal reads as itself")
}

func TestNilRefusalDoesNotPanic(t *testing.T) {
	var r *guard.Refusal
	assert.Equal(t, "<nil refusal>", r.Error())
	assert.False(t, r.Is(guard.StorageClassMismatch))
	data, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, "null", string(data))
}

// The JSON every output shares: every finding {"reason","field","message"},
// lists [] when empty, whatever their count.
func TestJSON(t *testing.T) {
	a := &guard.Refusal{Reason: guard.StorageClassMismatch, Field: "storageClass", Subject: "pool t/p", Detail: "differs"}
	b := &guard.Refusal{Reason: guard.DiskSmallerThanGolden, Field: "diskSize", Subject: "pool t/p", Detail: "small"}
	w := guard.Warning{Reason: guard.StateUnverified, Field: "storageClass", Kind: "CDI", Subject: "pool t/p", Detail: "not read"}
	cases := map[string]struct {
		v    any
		want string
	}{
		"no refusals": {guard.Refusals(nil), `[]`},
		"no warnings": {guard.Warnings(nil), `[]`},
		"one":         {guard.Refusals{a}, `[{"reason":"StorageClassMismatch","field":"storageClass","message":"pool t/p: storageClass: differs (StorageClassMismatch)"}]`},
		"two":         {guard.Refusals{a, b}, `[{"reason":"StorageClassMismatch","field":"storageClass","message":"pool t/p: storageClass: differs (StorageClassMismatch)"},{"reason":"DiskSmallerThanGolden","field":"diskSize","message":"pool t/p: diskSize: small (DiskSmallerThanGolden)"}]`},
		"warning":     {guard.Warnings{w}, `[{"reason":"StateUnverified","field":"storageClass","message":"pool t/p: storageClass: not read (StateUnverified)","kind":"CDI"}]`},
		"with a cause": {guard.Warnings{withCause(w, "forbidden: cannot list cdis.cdi.kubevirt.io")},
			`[{"reason":"StateUnverified","field":"storageClass","message":"pool t/p: storageClass: not read (StateUnverified)","kind":"CDI","cause":"forbidden: cannot list cdis.cdi.kubevirt.io"}]`},
		"in a struct": {struct{ R guard.Refusals }{}, `{"R":[]}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(tc.v)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(data))
			assert.False(t, strings.Contains(string(data), "null"))
		})
	}
}

func withCause(w guard.Warning, cause string) guard.Warning {
	w.Cause = cause
	return w
}
