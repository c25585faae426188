package clusterread

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func count(calls []Call) (lists, gets int) {
	for _, c := range calls {
		if c.Verb == List {
			lists++
		} else {
			gets++
		}
	}
	return lists, gets
}

func TestCallsOnePool(t *testing.T) {
	calls := Calls(plan.Needs(fleet.BuiltinPool("tenant-demo", "demo")), 0)
	g := fixtures.Golden
	assert.Equal(t, []Call{
		{List, state.StorageClass, "", ""},
		{List, state.PersistentVolumeClaim, "tenant-demo", ""},
		{List, state.DataVolume, "tenant-demo", ""},
		{List, state.StorageProfile, "", ""},
		{List, state.CDI, "", ""},
		{List, state.CSIDriver, "", ""},
		{List, state.VolumeSnapshotClass, "", ""},
		{List, state.CDIConfig, "", ""},
		{Get, state.PersistentVolumeClaim, "cozy-public", g},
		{Get, state.DataVolume, "cozy-public", g},
		// The golden PVC's volume: Read resolves it once the claim is read.
		{Get, state.PersistentVolume, "cozy-public", g},
	}, calls, "one request per object or kind a pool needs")
}

func TestCallsHTTPPool(t *testing.T) {
	pool := plan.Pool{Namespace: "tenant-demo", Name: "demo-md1", Spec: plan.DefaultPoolSpec("demo")}
	assert.Equal(t, []Call{
		{List, state.StorageClass, "", ""},
		{List, state.StorageProfile, "", ""},
		{List, state.CDIConfig, "", ""},
	}, Calls(plan.Needs(pool), 0), "the HTTP path reads what says whether CDI renders the disk, to warn; nothing of the pool's namespace")
	lists, gets := count(Calls(plan.NeedsAll(append(fleet.BuiltinPools(1000, 100), pool)), 0))
	assert.Equal(t, [2]int{8, 1}, [2]int{lists, gets}, "HTTP pools among a fleet add no request")
}

func TestCallsBounded(t *testing.T) {
	// A clone lists 6 cluster-scoped kinds (StorageClass, StorageProfile,
	// CDI, CSIDriver, VolumeSnapshotClass, CDIConfig) and the 2 namespaced
	// ones; its golden is 3 gets (DataVolume, PVC, the PVC's volume).
	cases := map[string]struct {
		reason            string
		pools, namespaces int
		lists, gets       int
	}{
		"TenPoolsOneNamespace": {
			reason: "pools of one namespace share its lists and the golden's gets",
			pools:  10, namespaces: 1, lists: 8, gets: 3,
		},
		"JustUnderTheLimit": {
			reason: "7 namespaces and a golden's get are 8 requests per namespaced kind: still per namespace",
			pools:  7, namespaces: 7, lists: 6 + 2*7, gets: 3,
		},
		"JustOverTheLimit": {
			reason: "8 namespaces and a golden's get are 9: one cluster-wide list per kind instead; the volume is still read by name",
			pools:  8, namespaces: 8, lists: 8, gets: 1,
		},
		"TenPools": {
			reason: "10 pools in 10 namespaces list cluster-wide",
			pools:  10, namespaces: 10, lists: 8, gets: 1,
		},
		"Fleet": {
			reason: "1,000 pools in 100 namespaces make as many LISTs as 10 pools, and read their golden's volume once",
			pools:  1000, namespaces: 100, lists: 8, gets: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			lists, gets := count(Calls(plan.NeedsAll(fleet.BuiltinPools(tc.pools, tc.namespaces)), 0))
			assert.Equal(t, [2]int{tc.lists, tc.gets}, [2]int{lists, gets}, tc.reason)
		})
	}
}

func TestCallsShapes(t *testing.T) {
	manyGets := state.Request{}
	for i := range 9 {
		manyGets.Gets = append(manyGets.Gets, ref(state.DataVolume, "cozy-public", fmt.Sprint("g", i)))
	}
	manyClassGets := state.Request{}
	for i := range 9 {
		manyClassGets.Gets = append(manyClassGets.Gets, ref(state.StorageClass, "", fmt.Sprint("c", i)))
	}
	cases := map[string]struct {
		reason string
		req    state.Request
		want   []Call
	}{
		"Nothing": {
			reason: "an empty request makes no call",
		},
		"GetsOnly": {
			reason: "objects wanted by name alone are read by name",
			req:    state.Request{Gets: []state.Ref{ref(state.DataVolume, "cozy-public", "g"), ref(state.DataVolume, "cozy-public", "g")}},
			want:   []Call{{Get, state.DataVolume, "cozy-public", "g"}},
		},
		"WideListCoversGets": {
			reason: "a cluster-wide list answers the gets of its kind",
			req: state.Request{
				Lists: []state.Ref{ref(state.PersistentVolumeClaim, "", "")},
				Gets:  []state.Ref{ref(state.PersistentVolumeClaim, "cozy-public", "g"), ref(state.DataVolume, "cozy-public", "g")},
			},
			want: []Call{{List, state.PersistentVolumeClaim, "", ""}, {List, state.DataVolume, "", ""}},
		},
		"NamespaceListCoversGets": {
			reason: "a namespace's list answers the gets in it",
			req: state.Request{
				Lists: []state.Ref{ref(state.PersistentVolumeClaim, "cozy-public", "")},
				Gets:  []state.Ref{ref(state.PersistentVolumeClaim, "cozy-public", "g")},
			},
			want: []Call{{List, state.PersistentVolumeClaim, "cozy-public", ""}},
		},
		"NamespacedKindsShareNamespaces": {
			reason: "every listed namespaced kind is listed in every listed namespace, so one scope describes them",
			req: state.Request{Lists: []state.Ref{
				ref(state.PersistentVolumeClaim, "a", ""), ref(state.PersistentVolumeClaim, "b", ""), ref(state.DataVolume, "a", ""),
			}},
			want: []Call{
				{List, state.PersistentVolumeClaim, "a", ""}, {List, state.PersistentVolumeClaim, "b", ""},
				{List, state.DataVolume, "a", ""}, {List, state.DataVolume, "b", ""},
			},
		},
		"ManyGets": {
			reason: "more gets of a kind than the limit become one list",
			req:    manyGets,
			want:   []Call{{List, state.DataVolume, "", ""}},
		},
		"ManyClusterScopedGets": {
			reason: "the same for a cluster-scoped kind",
			req:    manyClassGets,
			want:   []Call{{List, state.StorageClass, "", ""}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, Calls(tc.req, 0), tc.reason)
		})
	}
}
