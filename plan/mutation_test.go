package plan_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The tests of this file pin rules that mutation testing (gremlins, see
// internal/invariants/README.md) found no test noticing when broken.

// TestFlavorRefusedEvenInCatalog: a builtin flavor that is not valid is
// refused at the pool's own field, even when a catalog entry repeats the
// same invalid flavor; the catalog's copy of the name is no licence.
func TestFlavorRefusedEvenInCatalog(t *testing.T) {
	cases := map[string]planCase{
		"invalid flavor the catalog also holds": {
			reason: "the entry is invalid too, so it names no golden; the pool is refused for its own field",
			pool:   func(p *plan.Pool) { p.Spec.OSImage.Builtin.SchematicID = "CE4C" },
			catalog: func(v *catalog.Values) {
				v.Images = append(v.Images, catalog.Image{Flavor: catalog.Flavor{SchematicID: "CE4C", Version: chartdefaults.Version}})
			},
			refusals: []finding{f(guard.InvalidSchematicID, "osImage.builtin.schematicID")},
		},
		"valid flavor the catalog holds": {
			reason: "neighbour: the catalog's entry names the golden",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runPlan(t, tc, builtinPool) })
	}
}

// TestGoldenClassSides: the golden's class is the class its spec names,
// whether or not its PVC was observed; a golden that names none takes the
// cluster default once nothing of it is bound, and is compared on it.
// (Only refusals are compared: what the plan warns of a PVC it did not
// see is not this test's rule.)
func TestGoldenClassSides(t *testing.T) {
	pvcsUnknown := func(s *state.State) { s.Observed &^= state.PersistentVolumeClaim }
	classless := func(s *state.State) {
		s.DataVolumes[0].Spec.Storage.StorageClassName = nil
		s.DataVolumes[0].Status.Phase = cdiv1.ImportScheduled
		s.PersistentVolumeClaims = nil
	}
	cases := map[string]struct {
		reason   string
		class    string
		state    func(*state.State)
		refusals []finding
	}{
		"named class, PVC unknown": {
			reason:   "the golden's DataVolume names replicated: that is its class, seen, whatever its PVC",
			class:    "local",
			state:    pvcsUnknown,
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
		},
		"named class, PVC unknown, same class": {
			reason: "neighbour: the pool is on the class the golden names",
			class:  "replicated",
			state:  pvcsUnknown,
		},
		"classless golden, nothing bound": {
			reason:   "the golden names no class and has no PVC yet: it binds on the default, replicated",
			class:    "local",
			state:    classless,
			refusals: []finding{f(guard.StorageClassMismatch, "storageClass")},
		},
		"classless golden, pool on the default": {
			reason: "neighbour: the pool is on the default the golden will bind on",
			class:  "replicated",
			state:  classless,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := builtinPool()
			p.Spec.StorageClass = tc.class
			st := fullState()
			tc.state(st)
			_, err := plan.Plan(p, enabledCatalog(), state.NewSnapshot(st))
			assert.Equal(t, sorted(tc.refusals...), refusalsOf(err), tc.reason)
		})
	}
}

// TestHTTPZeroDiskSize: a diskSize of zero is not a positive quantity; the
// HTTP path renders it as given and warns, as for any malformed size.
func TestHTTPZeroDiskSize(t *testing.T) {
	cases := map[string]planCase{
		"zero": {
			reason:   "0 is a quantity but no size",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "0" },
			warnings: []finding{f(guard.InvalidQuantity, "diskSize")},
		},
		// Changed for CDI v1.64.0: one byte is a positive quantity, so it is
		// requested as given, but CDI's webhook rejects a DataVolume under
		// 1MiB (apiserver/webhooks/datavolume-validate.go
		// validateStorageSize): the HTTP path warns DiskUnrenderable.
		"one byte": {
			reason:   "neighbour: the smallest positive size is requested, and CDI admits it not",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "1" },
			warnings: []finding{f(guard.DiskUnrenderable, "diskSize")},
		},
		"1Mi": {
			reason: "neighbour: the smallest size CDI admits warns nothing",
			pool:   func(p *plan.Pool) { p.Spec.DiskSize = "1Mi" },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := runPlan(t, tc, httpPool)
			invalid := slices.Contains(tc.warnings, f(guard.InvalidQuantity, "diskSize"))
			if invalid == (len(res.Disk.Spec.Storage.Resources.Requests) != 0) {
				t.Errorf("a size is requested exactly when it is a positive quantity: %v", res.Disk.Spec.Storage.Resources.Requests)
			}
		})
	}
}

// TestPoolSpecDecoding: decoding pool values applies the chart's defaults
// for the keys that are absent, and a value of a type the chart cannot read
// is an error, never a silent default. A number is no such value: the
// chart prints it, so diskSize: 20 is "20".
func TestPoolSpecDecoding(t *testing.T) {
	var s plan.PoolSpec
	require.NoError(t, json.Unmarshal([]byte(`{"cluster":"demo","storageClass":""}`), &s))
	want := plan.DefaultPoolSpec("demo")
	want.StorageClass = ""
	assert.Equal(t, want, s, "absent keys take the chart's defaults; a key set to \"\" stays \"\"")

	require.NoError(t, json.Unmarshal([]byte(`{"cluster":"demo","diskSize":20}`), &s), "a number is printed as the chart prints it")
	assert.Equal(t, "20", s.DiskSize)

	err := json.Unmarshal([]byte(`{"cluster":"demo","diskSize":{"size":20}}`), &s)
	assert.Equal(t, []finding{f(guard.InvalidValue, "diskSize")}, fixtures.Refused(err), "a map where the chart expects a quantity string")
}

// TestStateUnverifiedField: StateUnverified is at the values field whose
// guards needed the kind: the goldens and the pool's disks (DataVolumes,
// PVCs) are read for osImage.builtin, the cluster-scoped kinds for the
// class comparison and the clone strategy, at storageClass.
func TestStateUnverifiedField(t *testing.T) {
	fields := func(snap *state.Snapshot) map[string]string {
		res, err := plan.Plan(builtinPool(), enabledCatalog(), snap)
		require.NoError(t, err)
		got := map[string]string{}
		for _, w := range res.Warnings {
			if w.Reason == guard.StateUnverified {
				got[w.Kind] = w.Field
			}
		}
		return got
	}
	// Offline, what CDI renders for the disk is unknown (its class, its
	// StorageProfile, CDI's config), so the host-assisted causes, which
	// rest on the rendered disk, do not run.
	assert.Equal(t, map[string]string{
		"DataVolume": "osImage.builtin", "PersistentVolumeClaim": "osImage.builtin",
		"StorageClass": "storageClass", "StorageProfile": "storageClass", "CDIConfig": "storageClass",
	}, fields(nil))
	// With the disk rendered, the kinds of the host-assisted causes.
	st := fullState()
	st.Observed &^= state.CDI | state.CSIDriver
	assert.Equal(t, map[string]string{"CDI": "storageClass", "CSIDriver": "storageClass"}, fields(state.NewSnapshot(st)))
	st = fullState()
	st.Observed &^= state.PersistentVolume
	assert.Equal(t, map[string]string{"PersistentVolume": "storageClass"}, fields(state.NewSnapshot(st)),
		"the golden's volume decides its CSI driver")
}
