package state_test

import (
	"reflect"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	tenant = "tenant-a"
	golden = "talos-worker-ce4c-v1.13.6"
)

func get(k state.Kind, ns, name string) state.Ref {
	return state.Ref{Kind: k, Namespace: ns, Name: name}
}
func list(k state.Kind, ns string) state.Ref { return state.Ref{Kind: k, Namespace: ns} }

func TestRequestMerge(t *testing.T) {
	goldenPVC := get(state.PersistentVolumeClaim, naming.GoldenNamespace, golden)
	goldenDV := get(state.DataVolume, naming.GoldenNamespace, golden)
	cases := map[string]struct {
		reason string
		a, b   state.Request
		want   state.Request
	}{
		"empty": {
			reason: "nothing merged with nothing needs nothing",
		},
		"dedupe gets": {
			reason: "two pools of one flavor read their golden once",
			a:      state.Request{Gets: []state.Ref{goldenPVC, goldenDV}},
			b:      state.Request{Gets: []state.Ref{goldenDV, goldenPVC}},
			want:   state.Request{Gets: []state.Ref{goldenPVC, goldenDV}},
		},
		"dedupe lists": {
			reason: "two pools of one namespace list it once",
			a:      state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant)}},
			b:      state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant), list(state.StorageClass, "")}},
			want:   state.Request{Lists: []state.Ref{list(state.StorageClass, ""), list(state.PersistentVolumeClaim, tenant)}},
		},
		"list name dropped": {
			reason: "a list reads a whole namespace: a name on it means nothing and does not split it",
			a:      state.Request{Lists: []state.Ref{get(state.DataVolume, tenant, "x")}},
			b:      state.Request{Lists: []state.Ref{list(state.DataVolume, tenant)}},
			want:   state.Request{Lists: []state.Ref{list(state.DataVolume, tenant)}},
		},
		"wide list covers namespaced lists": {
			reason: "a cluster-wide list of a kind covers its namespaced lists",
			a:      state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant), list(state.PersistentVolumeClaim, "tenant-b")}},
			b:      state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, "")}},
			want:   state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, "")}},
		},
		"wide list covers gets": {
			reason: "a cluster-wide list of a kind covers its gets",
			a:      state.Request{Gets: []state.Ref{goldenPVC, goldenDV}},
			b:      state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, "")}},
			want:   state.Request{Gets: []state.Ref{goldenDV}, Lists: []state.Ref{list(state.PersistentVolumeClaim, "")}},
		},
		"namespaced list covers gets in it": {
			reason: "a list of the golden namespace covers the gets in it",
			a:      state.Request{Gets: []state.Ref{goldenPVC}},
			b:      state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, naming.GoldenNamespace)}},
			want:   state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, naming.GoldenNamespace)}},
		},
		"list of another namespace": {
			reason: "a list of another namespace covers nothing of this one",
			a:      state.Request{Gets: []state.Ref{goldenPVC}},
			b:      state.Request{Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant)}},
			want:   state.Request{Gets: []state.Ref{goldenPVC}, Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant)}},
		},
		"wide list of another kind": {
			reason: "a cluster-wide list of one kind covers nothing of another",
			a:      state.Request{Gets: []state.Ref{goldenPVC}, Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant)}},
			b:      state.Request{Lists: []state.Ref{list(state.DataVolume, "")}},
			want: state.Request{
				Gets:  []state.Ref{goldenPVC},
				Lists: []state.Ref{list(state.PersistentVolumeClaim, tenant), list(state.DataVolume, "")},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.a.Merge(tc.b)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s:\nwant %+v\ngot  %+v", tc.reason, tc.want, got)
			}
			if back := tc.b.Merge(tc.a); !reflect.DeepEqual(back, got) {
				t.Errorf("%s: Merge depends on the order of its operands:\n%+v\n%+v", tc.reason, got, back)
			}
			if again := got.Merge(got); !reflect.DeepEqual(again, got) {
				t.Errorf("%s: merging a merged request with itself changed it: %+v", tc.reason, again)
			}
		})
	}
}

func TestRequestMergeDoesNotMutate(t *testing.T) {
	a := state.Request{Gets: make([]state.Ref, 2, 8), Lists: []state.Ref{list(state.DataVolume, "")}}
	a.Gets[0] = get(state.DataVolume, "b", "x")
	a.Gets[1] = get(state.PersistentVolumeClaim, "a", "y")
	before := state.Request{Gets: append([]state.Ref(nil), a.Gets...), Lists: append([]state.Ref(nil), a.Lists...)}
	_ = a.Merge(state.Request{Gets: []state.Ref{get(state.StorageClass, "", "z")}})
	if !reflect.DeepEqual(a, before) || a.Gets[:3][2] != (state.Ref{}) {
		t.Errorf("Merge changed its receiver or wrote into its spare capacity: %+v", a)
	}
}

// TestRequestMergeIsDeterministic: the same requests merged in any grouping
// and order give the same request, so adapters issue the same reads.
func TestRequestMergeIsDeterministic(t *testing.T) {
	reqs := []state.Request{
		{Gets: []state.Ref{get(state.DataVolume, naming.GoldenNamespace, "g1"), get(state.PersistentVolumeClaim, naming.GoldenNamespace, "g1")}, Lists: []state.Ref{list(state.DataVolume, "t1")}},
		{Gets: []state.Ref{get(state.DataVolume, naming.GoldenNamespace, "g2")}, Lists: []state.Ref{list(state.StorageClass, ""), list(state.PersistentVolumeClaim, "t2")}},
		{Lists: []state.Ref{list(state.CDI, ""), list(state.PersistentVolumeClaim, "t1")}},
		{Gets: []state.Ref{get(state.StorageProfile, "", "replicated")}, Lists: []state.Ref{list(state.DataVolume, "")}},
	}
	var forward, backward state.Request
	for i := range reqs {
		forward = forward.Merge(reqs[i])
		backward = backward.Merge(reqs[len(reqs)-1-i])
	}
	grouped := reqs[0].Merge(reqs[1]).Merge(reqs[2].Merge(reqs[3]))
	if !reflect.DeepEqual(forward, backward) || !reflect.DeepEqual(forward, grouped) {
		t.Errorf("merges differ:\n%+v\n%+v\n%+v", forward, backward, grouped)
	}
	for _, g := range forward.Gets {
		if g.Kind == state.DataVolume {
			t.Errorf("the cluster-wide DataVolume list covers %+v", g)
		}
	}
}
