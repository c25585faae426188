package catalog_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func TestNeedsList(t *testing.T) {
	list := func(k state.Kind, ns string) state.Ref { return state.Ref{Kind: k, Namespace: ns} }
	cases := map[string]struct {
		reason string
		got    state.Request
		want   []state.Ref
	}{
		"render": {
			reason: "Render and ReadBack read the goldens in cozy-public (DataVolumes and PVCs), the classes an empty class resolves against, and what says whether CDI renders a golden's PVC (StorageProfiles, CDIConfig)",
			got:    catalog.RenderNeeds(),
			want: []state.Ref{
				list(state.StorageClass, ""),
				list(state.PersistentVolumeClaim, naming.GoldenNamespace),
				list(state.DataVolume, naming.GoldenNamespace),
				list(state.StorageProfile, ""),
				list(state.CDIConfig, ""),
			},
		},
		"consumers": {
			reason: "Consumers reads every kind that may clone a golden, in every namespace, one list each",
			got:    catalog.ConsumersNeeds(),
			want: []state.Ref{list(state.PersistentVolumeClaim, ""), list(state.DataVolume, ""),
				list(state.KubevirtMachineTemplate, ""), list(state.VirtualMachine, ""), list(state.DataSource, ""),
				list(state.KubernetesNodes, ""), list(state.HelmRelease, "")},
		},
		"prune": {
			reason: "Prune reads both: the cluster-wide lists cover the cozy-public ones",
			got:    catalog.PruneNeeds(),
			want: []state.Ref{list(state.StorageClass, ""), list(state.PersistentVolumeClaim, ""), list(state.DataVolume, ""),
				list(state.StorageProfile, ""), list(state.CDIConfig, ""),
				list(state.KubevirtMachineTemplate, ""), list(state.VirtualMachine, ""), list(state.DataSource, ""),
				list(state.KubernetesNodes, ""), list(state.HelmRelease, "")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Empty(t, tc.got.Gets, tc.reason)
			assert.Equal(t, tc.want, tc.got.Lists, tc.reason)
		})
	}
}

// read is what an adapter reads of fixtures.Cluster for req, and nothing
// more.
func read(t *testing.T, req state.Request) *state.Snapshot {
	t.Helper()
	st, err := controllerruntime.New(fixtures.ControllerRuntime(interceptor.Funcs{}, fixtures.Cluster()...)).Read(context.Background(), req)
	require.NoError(t, err)
	return state.NewSnapshot(st)
}

func unverified(ws guard.Warnings) []string {
	var kinds []string
	for _, w := range ws {
		if w.Reason == guard.StateUnverified {
			kinds = append(kinds, w.Kind)
		}
	}
	return kinds
}

// TestNeedsAreEnough: each operation, given a state read with exactly
// what it says it needs, sees everything it would see in the whole
// cluster, and says nothing is unverified.
func TestNeedsAreEnough(t *testing.T) {
	v := catalog.Default()
	v.Enabled = true
	cat := catalog.Compile(v)
	whole := state.NewSnapshot(fixtures.State(state.AllKinds, fixtures.Cluster()...))

	t.Run("render", func(t *testing.T) {
		snap := read(t, catalog.RenderNeeds())
		got, err := catalog.Render(cat, snap)
		require.NoError(t, err)
		want, err := catalog.Render(cat, whole)
		require.NoError(t, err)
		assert.Empty(t, unverified(got.Warnings), "Render's needs observe all it compares")
		assert.Equal(t, []string{fixtures.OldGolden}, got.Unmanaged, "the golden the catalog dropped is seen")
		assert.Equal(t, want.Unmanaged, got.Unmanaged)
		if assert.Len(t, got.Goldens, 1) && assert.Len(t, want.Goldens, 1) {
			assert.Equal(t, want.Goldens[0].Spec, got.Goldens[0].Spec, "the live golden is reproduced as the whole cluster shows it")
		}

		back, warnings := catalog.ReadBack(snap)
		assert.Empty(t, warnings, "ReadBack's needs are Render's")
		wantBack, _ := catalog.ReadBack(whole)
		assert.Equal(t, wantBack, back)
	})
	t.Run("consumers", func(t *testing.T) {
		got := catalog.Consumers(fixtures.Golden, read(t, catalog.ConsumersNeeds()), plan.PoolGolden)
		assert.Empty(t, got.Warnings, "Consumers' needs observe every disk")
		assert.Equal(t, catalog.Consumers(fixtures.Golden, whole, plan.PoolGolden), got)
		assert.NotEmpty(t, got.Consumers, "the tenant's disk is seen")
	})
	t.Run("prune", func(t *testing.T) {
		got := catalog.Prune(cat, read(t, catalog.PruneNeeds()), plan.PoolGolden)
		assert.Empty(t, got.Warnings, "Prune's needs observe the goldens and every disk")
		assert.Equal(t, catalog.Prune(cat, whole, plan.PoolGolden), got)
		assert.Equal(t, []string{fixtures.OldGolden}, got.SafeToDelete, "what nothing clones is safe to delete only when every disk was seen")
	})
	t.Run("prune on render's needs", func(t *testing.T) {
		got := catalog.Prune(cat, read(t, catalog.RenderNeeds()), plan.PoolGolden)
		assert.ElementsMatch(t, []string{"DataVolume", "PersistentVolumeClaim", "KubevirtMachineTemplate", "VirtualMachine", "DataSource",
			"KubernetesNodes", "HelmRelease"}, unverified(got.Warnings),
			"neighbour: the goldens alone are not enough, the consumers of other namespaces are unseen")
		assert.Empty(t, got.SafeToDelete)
	})
}
