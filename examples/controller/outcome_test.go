package controller

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// pendingVersion is a flavor a catalog holds whose golden the fixture
// cluster has not imported yet.
const pendingVersion = "v1.13.5"

// catalogWithPending is the default catalog, enabled, plus pendingVersion.
func catalogWithPending() *catalog.Catalog {
	v := catalog.Default()
	v.Enabled = true
	v.Images = append(v.Images, catalog.Image{Flavor: catalog.Flavor{SchematicID: chartdefaults.SchematicID, Version: pendingVersion}})
	return catalog.Compile(v)
}

func TestConditionAndEvents(t *testing.T) {
	rr, err := manifests.Read("cluster.yaml", bytes.NewReader(fixtures.ListYAML(fixtures.Cluster()...)))
	st := rr.State
	require.NoError(t, err)
	snap := state.NewSnapshot(st)
	pool := func(mutate func(*plan.Pool)) plan.Pool {
		p := fleet.BuiltinPool(fixtures.OtherNamespace, "db")
		mutate(&p)
		return p
	}
	cases := map[string]struct {
		reason string
		pool   plan.Pool
		status metav1.ConditionStatus
		why    string
		lines  int
		events []string
	}{
		"clone": {
			reason: "a clone on the golden's class: True, Planned, one Normal event",
			pool:   pool(func(*plan.Pool) {}),
			status: metav1.ConditionTrue, why: ReasonPlanned, lines: 1,
			events: []string{"Normal Planned"},
		},
		"http": {
			reason: "the HTTP path plans the same way",
			pool:   pool(func(p *plan.Pool) { p.Spec.OSImage = nil }),
			status: metav1.ConditionTrue, why: ReasonPlanned, lines: 1,
			events: []string{"Normal Planned"},
		},
		"planned with a warning": {
			reason: "a golden not imported yet plans, and its warning is an event and a line",
			pool:   pool(func(p *plan.Pool) { p.Spec.OSImage.Builtin.Version = pendingVersion }),
			status: metav1.ConditionTrue, why: ReasonPlanned, lines: 2,
			events: []string{"Warning GoldenPending", "Normal Planned"},
		},
		"refused": {
			reason: "one refusal: False under its reason",
			pool:   pool(func(p *plan.Pool) { p.Spec.StorageClass = fixtures.LocalClass }),
			status: metav1.ConditionFalse, why: "StorageClassMismatch", lines: 1,
			events: []string{"Warning StorageClassMismatch"},
		},
		"refused twice": {
			reason: "every refusal is a line and an event; the first gives the reason",
			pool: pool(func(p *plan.Pool) {
				p.Spec.StorageClass = fixtures.LocalClass
				p.Spec.DiskSize = "5Gi"
			}),
			status: metav1.ConditionFalse, why: "StorageClassMismatch", lines: 2,
			events: []string{"Warning StorageClassMismatch", "Warning DiskSmallerThanGolden"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, _ := plan.Plan(tc.pool, catalogWithPending(), snap)
			c := condition(res, 7)
			assert.Equal(t, ConditionType, c.Type)
			assert.Equal(t, int64(7), c.ObservedGeneration, "the generation planned")
			assert.Equal(t, tc.status, c.Status, tc.reason)
			assert.Equal(t, tc.why, c.Reason, tc.reason)
			assert.Len(t, strings.Split(c.Message, "\n"), tc.lines, tc.reason)
			var got []string
			for _, e := range eventsOf(res) {
				got = append(got, e.Type+" "+e.Reason)
				assert.LessOrEqual(t, len(e.Note), noteLimit)
			}
			assert.Equal(t, tc.events, got, tc.reason)
		})
	}
}

func TestNote(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		cut    bool
	}{
		"short":      {reason: "a note within the limit is kept", in: "golden pending"},
		"at limit":   {reason: "exactly the limit is kept", in: strings.Repeat("a", noteLimit)},
		"one over":   {reason: "one byte over is cut", in: strings.Repeat("a", noteLimit+1), cut: true},
		"multi-byte": {reason: "a cut never splits a character", in: strings.Repeat("é", noteLimit), cut: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := note(tc.in)
			assert.LessOrEqual(t, len(got), noteLimit, tc.reason)
			assert.True(t, utf8.ValidString(got), tc.reason)
			if !tc.cut {
				assert.Equal(t, tc.in, got, tc.reason)
				return
			}
			assert.True(t, strings.HasSuffix(got, "…"), tc.reason)
			assert.True(t, strings.HasPrefix(tc.in, strings.TrimSuffix(got, "…")), tc.reason)
		})
	}
}
