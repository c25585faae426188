package catalog_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The tests of this file pin rules that mutation testing (gremlins, see
// internal/invariants/README.md) found no test noticing when broken.

const (
	goldenA = "talos-worker-aaa111-v1.13.6"
	goldenB = "talos-worker-bbb222-v1.13.6"
	tenant  = "tenant-a"
)

// TestConsumersOfARepointedDisk: a PVC that clones a golden its same-named
// DataVolume does not (the DataVolume was re-pointed at a newer golden) is
// a consumer of that golden in its own right, with its DataVolume's pool
// when it carries none; the DataVolume is a consumer of the newer one.
func TestConsumersOfARepointedDisk(t *testing.T) {
	st := fixtures.State(state.AllKinds,
		fixtures.DataVolume(tenant, "w1").WorkerOf("kubernetes-demo-md0", goldenB).Obj(),
		fixtures.PVC(tenant, "w1").Annotation(naming.GoldenAnnotation, goldenA).Obj())
	snap := state.NewSnapshot(st)
	assert.Equal(t, []catalog.Consumer{{Kind: catalog.KindPersistentVolumeClaim, Namespace: tenant, Name: "w1", Pool: "kubernetes-demo-md0"}},
		catalog.Consumers(goldenA, snap, plan.PoolGolden).Consumers)
	assert.Equal(t, []catalog.Consumer{{Kind: catalog.KindDataVolume, Namespace: tenant, Name: "w1", Pool: "kubernetes-demo-md0"}},
		catalog.Consumers(goldenB, snap, plan.PoolGolden).Consumers)

	st.PersistentVolumeClaims[0].Annotations[naming.PoolAnnotation] = "kubernetes-demo-md1"
	assert.Equal(t, "kubernetes-demo-md1", catalog.Consumers(goldenA, state.NewSnapshot(st), plan.PoolGolden).Consumers[0].Pool,
		"neighbour: a PVC's own pool annotation wins")
}

// TestAGoldenIsNotItsOwnConsumer: the golden's own objects in cozy-public
// do not clone it, whatever they carry; a tenant disk that happens to bear
// the golden's name does.
func TestAGoldenIsNotItsOwnConsumer(t *testing.T) {
	st := fixtures.State(state.AllKinds,
		fixtures.PVC(naming.GoldenNamespace, goldenA).Annotation(naming.GoldenAnnotation, goldenA).Obj(),
		fixtures.PVC(tenant, goldenA).Annotation(naming.GoldenAnnotation, goldenA).Obj())
	assert.Equal(t, []catalog.Consumer{{Kind: catalog.KindPersistentVolumeClaim, Namespace: tenant, Name: goldenA}},
		catalog.Consumers(goldenA, state.NewSnapshot(st), plan.PoolGolden).Consumers)
}

// TestDataSourceOfTheCoreGroup: a PVC's dataSourceRef to a
// PersistentVolumeClaim names the core group as nil or "", and both clone;
// a kind of that name in another group is something else.
func TestDataSourceOfTheCoreGroup(t *testing.T) {
	ref := func(name string, group *string) *corev1.PersistentVolumeClaim {
		p := fixtures.PVC(tenant, name).DataSourceRef(naming.GoldenNamespace, goldenA).Obj()
		p.Spec.DataSourceRef.APIGroup = group
		return p
	}
	st := fixtures.State(state.AllKinds, ref("empty-group", ptr.To("")), ref("nil-group", nil), ref("other-group", ptr.To("example.com")))
	var names []string
	for _, c := range catalog.Consumers(goldenA, state.NewSnapshot(st), plan.PoolGolden).Consumers {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"empty-group", "nil-group"}, names)
}

// TestPVCOnlyGoldenWhileDataVolumesUnknown: a golden seen by its PVC alone
// while DataVolumes were not read may still have a DataVolume with other
// values, so render does not take the PVC for the golden: it renders the
// entry and says DataVolumes were not observed.
func TestPVCOnlyGoldenWhileDataVolumesUnknown(t *testing.T) {
	v := catalog.Default()
	v.Enabled = true
	golden := fixtures.GoldenClaim(chartdefaults.SchematicID, chartdefaults.Version).Class("replicated").Size("7Gi").Obj()
	cases := map[string]struct {
		reason   string
		observed state.Kind
		size     string
		warnings []guard.Reason
	}{
		"DataVolumes unknown": {"the PVC may not be all of the golden", state.AllKinds &^ state.DataVolume, "6Gi", []guard.Reason{guard.StateUnverified}},
		"DataVolumes read":    {"neighbour: the golden is its PVC, rendered with its size", state.AllKinds, "7Gi", nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := fixtures.State(tc.observed, golden)
			res, err := catalog.Render(catalog.Compile(v), state.NewSnapshot(st))
			require.NoError(t, err)
			var reasons []guard.Reason
			for _, w := range res.Warnings {
				reasons = append(reasons, w.Reason)
			}
			assert.Equal(t, tc.warnings, reasons, tc.reason)
			got := res.Goldens[0].Spec.Storage.Resources.Requests[corev1.ResourceStorage]
			assert.Zero(t, got.Cmp(resource.MustParse(tc.size)), "rendered %s; %s", got.String(), tc.reason)
		})
	}
}

// TestRenderJSONListsAreNeverNull: tools build on `catalog render -o json`,
// so its lists are [] when empty, never null, and kept when not.
func TestRenderJSONListsAreNeverNull(t *testing.T) {
	out, err := json.Marshal(catalog.RenderResult{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"goldens":[],"unmanaged":[],"warnings":[],"refusals":[]}`, string(out))
	out, err = json.Marshal(catalog.RenderResult{Unmanaged: []string{goldenA}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"goldens":[],"unmanaged":["`+goldenA+`"],"warnings":[],"refusals":[]}`, string(out), "neighbour: a list with names")
}

// TestFromClusterWithoutState: a catalog read back from no state at all
// has no entry, and says the goldens were not observed, so that no flavor
// is refused for missing from it.
func TestFromClusterWithoutState(t *testing.T) {
	c, warnings := catalog.FromCluster(nil)
	assert.Zero(t, c.Len())
	assert.Equal(t, state.DataVolume|state.PersistentVolumeClaim, c.UnobservedKinds())
	assert.Len(t, warnings, 2)
}

// TestEntryClassAgainstAnUnseenBinding: an entry that names a class is no
// edit of a golden that names none while the golden's PVC, which holds the
// class it is bound on, was not observed: that says StateUnverified. Seen
// bound on another class, it is an edit.
func TestEntryClassAgainstAnUnseenBinding(t *testing.T) {
	v := catalog.Default()
	v.Enabled = true
	name := naming.GoldenPrefix + chartdefaults.SchematicID + "-" + chartdefaults.Version
	e, ok := catalog.Compile(v).LookupGolden(name)
	require.True(t, ok)
	dv := catalog.NewGolden(e)
	dv.Spec.Storage.StorageClassName = nil
	bound := fixtures.PVC(naming.GoldenNamespace, name).Class("local").Bound().Obj()
	local := fixtures.StorageClass("local").Default().Obj()
	cases := map[string]struct {
		reason   string
		state    *state.State
		refusals []fixtures.Finding
		warnings []fixtures.Finding
	}{
		"PVCs unknown": {
			reason:   "the golden may be bound on replicated; nothing proves an edit",
			state:    fixtures.State(state.AllKinds&^state.PersistentVolumeClaim, local, &dv),
			warnings: []fixtures.Finding{{Reason: guard.StateUnverified, Field: "images"}},
		},
		"bound on another class": {
			reason:   "neighbour: the golden is bound on local, the entry says replicated",
			state:    fixtures.State(state.AllKinds, local, &dv, bound),
			refusals: []fixtures.Finding{{Reason: guard.CatalogEntryImmutable, Field: "images[0].storageClass"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := catalog.Render(catalog.Compile(v), state.NewSnapshot(tc.state))
			assert.Equal(t, tc.refusals, fixtures.Refused(err), tc.reason)
			assert.Equal(t, tc.warnings, fixtures.Warned(res.Warnings), tc.reason)
		})
	}
}
