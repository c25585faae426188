package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// lostGolden is a cluster where pool demo-md0 has cloned the golden, which
// is gone, and a scaled-to-zero pool's template of another tenant still
// points at it.
func lostGolden() *state.State {
	s := fullState()
	addDisks(workerDisk("w1", "replicated"))(s)
	dropGolden(s)
	s.KubevirtMachineTemplates = append(s.KubevirtMachineTemplates,
		*fixtures.Template("tenant-b", "kubernetes-b-md0-610acb").Pool("kubernetes-b-md0").
			Entries(fixtures.CloneEntry("kubernetes-b-md0", golden, "replicated", "20Gi")).Obj())
	return s
}

func TestBlastRadius(t *testing.T) {
	cat := enabledCatalog()
	cases := map[string]struct {
		reason string
		pool   plan.Pool
		state  *state.State
		want   *catalog.Radius
	}{
		"golden unavailable": {
			reason: "the pool runs on a golden that is gone: two pools (its own by its disk, the other by its template) and one template point at it",
			pool:   builtinPool(),
			state:  lostGolden(),
			want:   &catalog.Radius{Golden: golden, Pools: 2, Templates: 1},
		},
		"golden unavailable, templates unread": {
			reason: "the templates unknown: the count is a lower bound and says which kind hides more",
			pool:   builtinPool(),
			state: func() *state.State {
				s := lostGolden()
				s.Observed &^= state.KubevirtMachineTemplate
				return s
			}(),
			want: &catalog.Radius{Golden: golden, Pools: 1, Unobserved: []string{"KubevirtMachineTemplate"}},
		},
		"golden there": {
			reason: "neighbour: the golden is fine, so there is no radius to tell",
			pool:   builtinPool(),
			state: func() *state.State {
				s := fullState()
				addDisks(workerDisk("w1", "replicated"))(s)
				return s
			}(),
		},
		"golden missing, nothing cloned": {
			reason: "neighbour: a golden not created yet for a pool that never cloned it is pending, not unavailable",
			pool:   builtinPool(),
			state: func() *state.State {
				s := fullState()
				dropGolden(s)
				return s
			}(),
		},
		"http": {
			reason: "neighbour: the HTTP path has no golden",
			pool:   httpPool(),
			state:  lostGolden(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			snap := state.NewSnapshot(tc.state)
			res, _ := plan.Plan(tc.pool, cat, snap)
			assert.Nil(t, res.BlastRadius, "Plan itself never counts consumers")
			results := []plan.Result{res}
			set := plan.AddBlastRadius(results, catalog.NewConsumerIndex(snap, plan.PoolGolden))
			assert.Equal(t, tc.want != nil, set, tc.reason)
			assert.Equal(t, tc.want, results[0].BlastRadius, tc.reason)
			for _, w := range res.Warnings {
				assert.False(t, w.Reason == guard.StateUnverified && w.Kind == "KubevirtMachineTemplate",
					"%s: a template unread warns nothing of the plan", tc.reason)
			}
		})
	}
}

// TestBlastRadiusJSON: the pool entry of plan -o json carries
// "blastRadius" when it was counted, and no such key otherwise.
func TestBlastRadiusJSON(t *testing.T) {
	snap := state.NewSnapshot(lostGolden())
	res, err := plan.Plan(builtinPool(), enabledCatalog(), snap)
	require.NoError(t, err)
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "blastRadius")

	results := []plan.Result{res}
	plan.AddBlastRadius(results, catalog.NewConsumerIndex(snap, plan.PoolGolden))
	raw, err = json.Marshal(results[0])
	require.NoError(t, err)
	var got struct {
		BlastRadius map[string]any `json:"blastRadius"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, map[string]any{"golden": golden, "pools": 2.0, "templates": 1.0}, got.BlastRadius)
}

// TestNeedsReadNoConsumerKind: what a plan reads decides its disk and
// nothing else; the blast radius and the live templates are read only
// through their own needs.
func TestNeedsReadNoConsumerKind(t *testing.T) {
	for _, p := range []plan.Pool{builtinPool(), httpPool()} {
		n := plan.Needs(p)
		for _, r := range append(n.Gets, n.Lists...) {
			assert.True(t, state.PlanKinds.Has(r.Kind), "Needs reads %s", r.Kind)
		}
	}
	for _, r := range catalog.ConsumersNeeds().Lists {
		assert.Equal(t, "", r.Namespace, "the radius is the whole cluster's")
	}
	assert.Len(t, catalog.ConsumersNeeds().Lists, len(state.ConsumerKinds.Each()), "one list per consumer kind")

	other := builtinPool()
	other.Namespace = "tenant-b"
	assert.Equal(t, state.Request{Lists: []state.Ref{
		{Kind: state.KubevirtMachineTemplate, Namespace: "tenant-b"},
		{Kind: state.KubevirtMachineTemplate, Namespace: tenantNS},
	}}, plan.TemplateNeeds([]plan.Pool{builtinPool(), other, httpPool()}), "one list of templates per pool namespace")
}
