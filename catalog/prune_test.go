package catalog

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func TestPrune(t *testing.T) {
	const idC = "ccc333"
	goldenC := naming.GoldenPrefix + idC + "-" + v1136
	goldens := []cdiv1.DataVolume{
		liveDV(idA, urlA, "6Gi", "replicated"),
		liveDV(idB, naming.ImageURL(factory, idB, v1136), "6Gi", "replicated"),
		liveDV(idC, naming.ImageURL(factory, idC, v1136), "6Gi", "replicated"),
	}
	cloneB := workerDV(tenantNS, "disk-b", goldenB, "kubernetes-demo-md0")
	cloneA := workerDV(tenantNS, "disk-a", goldenA, "kubernetes-demo-md1")
	onlyA := Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}))
	keptB := Kept{Name: goldenB, Consumers: []Consumer{{KindDataVolume, tenantNS, "disk-b", "kubernetes-demo-md0"}},
		BlastRadius: Radius{Golden: goldenB, Pools: 1}}
	scopedB := keptB
	scopedB.BlastRadius.Unobserved = []string{"PersistentVolumeClaim", "DataVolume", "KubevirtMachineTemplate", "VirtualMachine", "DataSource",
		"KubernetesNodes", "HelmRelease"}

	cases := map[string]struct {
		reason   string
		cat      *Catalog
		state    *state.State
		want     PruneReport
		warnings []fixtures.Finding
	}{
		"SafeAndKept": {
			reason: "of the goldens no entry manages, the one nothing clones is safe to delete, the cloned one is kept with its consumers; the managed one is neither",
			cat:    onlyA,
			state:  cluster(append(goldens, cloneA, cloneB), nil),
			want: PruneReport{
				SafeToDelete: []string{goldenC},
				Kept:         []Kept{keptB},
			},
		},
		"Disabled": {
			reason: "a disabled catalog manages nothing",
			cat: func() *Catalog {
				v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})
				v.Enabled = false
				return Compile(v)
			}(),
			state: cluster(append(goldens, cloneB), nil),
			want: PruneReport{
				SafeToDelete: []string{goldenA, goldenC},
				Kept:         []Kept{keptB},
			},
		},
		"NilCatalog": {
			reason: "no catalog manages nothing",
			state:  cluster(goldens[:1], nil),
			want:   PruneReport{SafeToDelete: []string{goldenA}, Kept: []Kept{}},
		},
		"DisksNotObservedEverywhere": {
			reason: "when disks were read in some namespaces only, a consumer may be unseen: nothing is safe to delete, what is seen cloned is kept",
			cat:    onlyA,
			state: func() *state.State {
				s := cluster(append(goldens, cloneB), nil)
				s.Namespaces = []string{naming.GoldenNamespace, tenantNS}
				return s
			}(),
			want: PruneReport{
				SafeToDelete: []string{},
				Kept:         []Kept{scopedB},
			},
			warnings: slices.Repeat([]fixtures.Finding{{Reason: guard.StateUnverified, Field: "safeToDelete"}}, 7),
		},
		"PVCsUnknown": {
			reason: "PVCs unknown alone are enough to report nothing safe to delete",
			cat:    onlyA,
			state: func() *state.State {
				s := cluster(goldens, nil)
				s.Observed &^= state.PersistentVolumeClaim
				return s
			}(),
			want:     PruneReport{SafeToDelete: []string{}, Kept: []Kept{}},
			warnings: []fixtures.Finding{{Reason: guard.StateUnverified, Field: "safeToDelete"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Prune(tc.cat, state.NewSnapshot(tc.state), readPools)
			assert.Equal(t, tc.warnings, fixtures.Warned(got.Warnings), tc.reason)
			got.Warnings = nil
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}

func TestPruneJSON(t *testing.T) {
	rep := Prune(nil, state.NewSnapshot(cluster([]cdiv1.DataVolume{
		liveDV(idA, urlA, "6Gi", "replicated"),
		workerDV(tenantNS, "disk", goldenA, "kubernetes-demo-md0"),
	}, nil)), readPools)

	raw, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.JSONEq(t, `{"safeToDelete":[],"kept":[{"name":"`+goldenA+`","consumers":[
		{"kind":"DataVolume","namespace":"tenant-a","name":"disk","pool":"kubernetes-demo-md0"}],
		"blastRadius":{"golden":"`+goldenA+`","pools":1,"templates":0}}],"warnings":[]}`, string(raw))

	res := Consumers(goldenA, state.NewSnapshot(cluster(nil, nil)), readPools)
	raw, err = json.Marshal(res)
	require.NoError(t, err)
	assert.JSONEq(t, `{"golden":"`+goldenA+`","consumers":[],"blastRadius":{"golden":"`+goldenA+`","pools":0,"templates":0},"warnings":[]}`, string(raw))
}

// TestReportsJSONCarryWarnings: a script reading `catalog consumers` or
// `catalog prune` as JSON must see that the answer may be incomplete: the
// StateUnverified warnings are in it, each naming the kind it could not
// read.
func TestReportsJSONCarryWarnings(t *testing.T) {
	type warning struct {
		Reason  guard.Reason `json:"reason"`
		Field   string       `json:"field"`
		Message string       `json:"message"`
		Kind    string       `json:"kind"`
	}
	unread := state.NewSnapshot(fixtures.State(state.AllKinds &^ (state.DataVolume | state.PersistentVolumeClaim)))
	cases := map[string]struct {
		reason string
		report any
		field  string
	}{
		"consumers": {"consumers of a golden while no disk was read", Consumers(goldenA, unread, readPools), "consumers"},
		"prune":     {"prune while no disk was read", Prune(Compile(values()), unread, readPools), "safeToDelete"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			raw, err := json.Marshal(tc.report)
			require.NoError(t, err)
			var got struct {
				Warnings []warning `json:"warnings"`
			}
			require.NoError(t, json.Unmarshal(raw, &got))
			var kinds []string
			for _, w := range got.Warnings {
				assert.Equal(t, guard.StateUnverified, w.Reason, tc.reason)
				assert.Equal(t, tc.field, w.Field, tc.reason)
				assert.NotEmpty(t, w.Message, tc.reason)
				kinds = append(kinds, w.Kind)
			}
			assert.ElementsMatch(t, []string{"DataVolume", "PersistentVolumeClaim"}, kinds, "%s: one warning per kind, naming it", tc.reason)
		})
	}
}

func TestUnmanaged(t *testing.T) {
	snap := state.NewSnapshot(cluster([]cdiv1.DataVolume{
		liveDV(idB, naming.ImageURL(factory, idB, v1136), "6Gi", "replicated"),
		liveDV(idA, urlA, "6Gi", "replicated"),
	}, nil))
	assert.Equal(t, []string{goldenB}, Unmanaged(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), snap))
	assert.Equal(t, []string{goldenA, goldenB}, Unmanaged(Compile(values()), snap), "an empty catalog manages nothing")
	assert.Equal(t, []string{}, Unmanaged(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idB, Version: v1136}})), snap))
}
