package state_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/internal/diskscope"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func narrow(r state.Request, ns, pool string) state.Request {
	return diskscope.Narrow(r, ns, pool).(state.Request)
}

func disks(ns string) state.Request {
	return state.Request{Lists: []state.Ref{list(state.DataVolume, ns), list(state.PersistentVolumeClaim, ns)}}
}

// TestRequestDisks: a namespace's disk lists stay kept to some pools'
// disks only while nothing else needs the namespace whole.
func TestRequestDisks(t *testing.T) {
	a, b := narrow(disks(tenant), tenant, "kubernetes-a"), narrow(disks(tenant), tenant, "kubernetes-b")
	cases := map[string]struct {
		reason string
		req    state.Request
		want   []string
	}{
		"one pool": {
			reason: "a pool's plan reads its own disks of its namespace",
			req:    a, want: []string{"kubernetes-a"},
		},
		"merged": {
			reason: "two pools of one namespace read the disks of both",
			req:    a.Merge(b), want: []string{"kubernetes-a", "kubernetes-b"},
		},
		"merged with nothing": {
			reason: "a request that does not list the namespace leaves it kept to the pools",
			req:    a.Merge(state.Request{Lists: []state.Ref{list(state.StorageClass, "")}}), want: []string{"kubernetes-a"},
		},
		"whole list wins": {
			reason: "a request that lists the namespace's DataVolumes whole needs every one",
			req:    a.Merge(state.Request{Lists: []state.Ref{list(state.DataVolume, tenant)}}),
		},
		"whole list wins either side": {
			reason: "merging is symmetric",
			req:    state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant)}}.Merge(a),
		},
		"cluster-wide list": {
			reason: "a cluster-wide list of disks reads every namespace whole",
			req:    a.Merge(state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, "")}}),
		},
		"a get in the namespace": {
			reason: "a get the namespace's list answers needs that list whole",
			req:    a.Merge(state.Request{Gets: []state.Ref{get(state.DataVolume, tenant, "x")}}),
		},
		"a get elsewhere": {
			reason: "the golden's get in its own namespace does not widen the pool's",
			req:    a.Merge(state.Request{Gets: []state.Ref{get(state.DataVolume, naming.GoldenNamespace, golden)}}), want: []string{"kubernetes-a"},
		},
		"not listed": {
			reason: "a namespace whose disks are not listed is kept to nothing",
			req:    narrow(state.Request{}, tenant, "kubernetes-a"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, diskscope.Pools(tc.req, tenant), tc.reason)
		})
	}
}
