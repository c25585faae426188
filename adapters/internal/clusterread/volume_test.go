package clusterread

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// held is a Source over objects: it answers each call with what it holds
// (a get of a missing object is NotFound), or with the error scripted for
// the call, and records every call it is asked.
type held struct {
	objs  []client.Object
	errs  map[Call]error
	mu    sync.Mutex
	calls []Call
}

func (h *held) record(c Call) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, c)
}

func (h *held) List(_ context.Context, k state.Kind, ns string, into *state.State) error {
	h.record(Call{List, k, ns, ""})
	if err := h.errs[Call{List, k, ns, ""}]; err != nil {
		return err
	}
	for _, o := range h.objs {
		if kindOf(o) == k && (ns == "" || o.GetNamespace() == ns) {
			appendObject(into, k, o)
		}
	}
	return nil
}

func (h *held) Get(_ context.Context, k state.Kind, ns, name string, into *state.State) error {
	h.record(Call{Get, k, ns, name})
	if err := h.errs[Call{Get, k, ns, name}]; err != nil {
		return err
	}
	for _, o := range h.objs {
		if kindOf(o) == k && o.GetNamespace() == ns && o.GetName() == name {
			appendObject(into, k, o)
			return nil
		}
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: kinds.Of(k).Resource}, name)
}

// reads lists the calls of kind k.
func (h *held) reads(k state.Kind) []Call {
	var out []Call
	for _, c := range h.calls {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

func kindOf(o client.Object) state.Kind {
	info, _ := kinds.ByGVK(o.GetObjectKind().GroupVersionKind())
	return info.Kind
}

func appendObject(into *state.State, k state.Kind, o client.Object) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		panic(err)
	}
	if err := kinds.AppendUnstructured(into, k, m); err != nil {
		panic(err)
	}
}

// goldenVolume is the volume fixtures.Cluster binds the default golden to.
var goldenVolume = "pv-" + fixtures.Golden

func TestReadGoldenVolumeOncePerGolden(t *testing.T) {
	cases := map[string]struct {
		reason            string
		pools, namespaces int
	}{
		"OnePool":       {"one pool reads its golden's volume by name", 1, 1},
		"OneNamespace":  {"ten pools of one golden read its volume once", 10, 1},
		"WideLists":     {"pools over ten namespaces list PVCs cluster-wide, and still read the volume by name, once", 10, 10},
		"ThousandPools": {"1,000 pools of one golden read one volume, once", 1000, 100},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src := &held{objs: fixtures.Cluster()}
			pools := fleet.BuiltinPools(tc.pools, tc.namespaces)
			st, err := Read(context.Background(), src, plan.NeedsAll(pools), 0)
			require.NoError(t, err)
			assert.Equal(t, []Call{{Get, state.PersistentVolume, "", goldenVolume}}, src.reads(state.PersistentVolume), tc.reason)
			assert.False(t, st.Observed.Has(state.PersistentVolume), "%s: a volume read by name observes no more than itself", tc.reason)
			assert.Contains(t, st.Objects, ref(state.PersistentVolume, "", goldenVolume), tc.reason)

			snap := state.NewSnapshot(st)
			pv := stateindex.Of(snap).PersistentVolume(goldenVolume)
			require.NotNil(t, pv, tc.reason)
			assert.Equal(t, fixtures.ReplicatedProvisioner, pv.Spec.CSI.Driver)
			res, err := plan.Plan(pools[0], fleet.DefaultCatalog(), snap)
			require.NoError(t, err, tc.reason)
			assert.Empty(t, res.Warnings, "%s: the reads cover everything the plan needs", tc.reason)
		})
	}
}

// goldens is a cluster of n goldens, each PVC bound to its own CSI volume,
// and one pool per golden, each in its own namespace.
func goldens(n int) ([]client.Object, []plan.Pool, []string) {
	size := fleet.Size{Goldens: n, Namespaces: n}
	var objs []client.Object
	var volumes []string
	for i := range n {
		f := fleet.Flavor(i)
		name, err := naming.GoldenName(f.SchematicID, f.Version, nil, nil)
		if err != nil {
			panic(err)
		}
		pvc := fixtures.GoldenPVC(name, f.Version, fixtures.ReplicatedClass, "6Gi")
		pvc.Spec.VolumeName = "pv-" + name
		objs = append(objs, pvc, fixtures.VolumeOf(pvc, fixtures.ReplicatedProvisioner))
		volumes = append(volumes, pvc.Spec.VolumeName)
	}
	return objs, fleet.Pools(size, n), volumes
}

func TestReadGoldenVolumesBounded(t *testing.T) {
	t.Run("AtTheLimit", func(t *testing.T) {
		objs, pools, volumes := goldens(DefaultLimit)
		src := &held{objs: objs}
		st, err := Read(context.Background(), src, plan.NeedsAll(pools), 0)
		require.NoError(t, err)
		var want []Call
		for _, v := range volumes {
			want = append(want, Call{Get, state.PersistentVolume, "", v})
		}
		assert.ElementsMatch(t, want, src.reads(state.PersistentVolume), "as many goldens as the limit: each volume by name")
		snap := state.NewSnapshot(st)
		for _, v := range volumes {
			assert.NotNil(t, stateindex.Of(snap).PersistentVolume(v), v)
		}
	})
	t.Run("OverTheLimit", func(t *testing.T) {
		objs, pools, volumes := goldens(DefaultLimit + 1)
		src := &held{objs: objs}
		st, err := Read(context.Background(), src, plan.NeedsAll(pools), 0)
		require.NoError(t, err)
		assert.Equal(t, []Call{{List, state.PersistentVolume, "", ""}}, src.reads(state.PersistentVolume),
			"more goldens than the limit: one list of every volume instead of a get each")
		assert.True(t, st.Observed.Has(state.PersistentVolume), "the list observes the kind")
		snap := state.NewSnapshot(st)
		for _, v := range volumes {
			assert.NotNil(t, stateindex.Of(snap).PersistentVolume(v), v)
		}
	})
}

func TestReadGoldenVolumeNeedsItsClaim(t *testing.T) {
	claim := ref(state.PersistentVolumeClaim, naming.GoldenNamespace, fixtures.Golden)
	claimForm := ref(state.PersistentVolume, naming.GoldenNamespace, fixtures.Golden)
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, fixtures.Golden, errors.New("rbac"))
	cases := map[string]struct {
		reason string
		req    state.Request
		errs   map[Call]error
	}{
		"ClaimNotAsked": {
			reason: "a volume get whose claim nobody asked for reads nothing and records nothing",
			req:    state.Request{Gets: []state.Ref{claimForm}},
		},
		"ClaimForbidden": {
			reason: "a claim the reader may not see leaves its volume unknown: not read, not recorded",
			req:    state.Request{Gets: []state.Ref{claim, claimForm}},
			errs:   map[Call]error{{Get, state.PersistentVolumeClaim, claim.Namespace, claim.Name}: forbidden},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src := &held{objs: fixtures.Cluster(), errs: tc.errs}
			st, err := Read(context.Background(), src, tc.req, 0)
			require.NoError(t, err, tc.reason)
			assert.Empty(t, src.reads(state.PersistentVolume), tc.reason)
			assert.Empty(t, st.Objects, tc.reason)
			snap := state.NewSnapshot(st)
			assert.False(t, stateindex.Of(snap).Covers(state.PersistentVolume, "", goldenVolume), tc.reason)
		})
	}
}

func TestReadGoldenVolumeAnswers(t *testing.T) {
	volumeGet := Call{Get, state.PersistentVolume, "", goldenVolume}
	t.Run("Forbidden", func(t *testing.T) {
		src := &held{objs: fixtures.Cluster(), errs: map[Call]error{
			volumeGet: apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumes"}, goldenVolume, errors.New("rbac")),
		}}
		pool := fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)
		st, err := Read(context.Background(), src, plan.Needs(pool), 0)
		require.NoError(t, err, "a refusal is not an error")
		for _, r := range st.Objects {
			assert.NotEqual(t, state.PersistentVolume, r.Kind, "a Forbidden volume is recorded in no form: %v", r)
		}
		snap := state.NewSnapshot(st)
		assert.False(t, stateindex.Of(snap).Covers(state.PersistentVolume, "", goldenVolume), "a Forbidden volume is unknown, never absent")

		res, err := plan.Plan(pool, fleet.DefaultCatalog(), snap)
		require.NoError(t, err, "an unknown volume refuses nothing")
		assert.Contains(t, unverifiedKinds(res.Warnings), "PersistentVolume", "the guard that needed the golden's driver says so")
	})
	t.Run("NotFound", func(t *testing.T) {
		var objs []client.Object
		for _, o := range fixtures.Cluster() {
			if o.GetName() != goldenVolume {
				objs = append(objs, o)
			}
		}
		src := &held{objs: objs}
		st, err := Read(context.Background(), src, plan.Needs(fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)), 0)
		require.NoError(t, err)
		assert.Equal(t, []Call{volumeGet}, src.reads(state.PersistentVolume))
		snap := state.NewSnapshot(st)
		assert.True(t, stateindex.Of(snap).Covers(state.PersistentVolume, "", goldenVolume), "a NotFound volume is known absent")
		assert.Nil(t, stateindex.Of(snap).PersistentVolume(goldenVolume))
	})
	t.Run("Unbound", func(t *testing.T) {
		objs := fixtures.Cluster()
		for _, o := range objs {
			if pvc, ok := o.(*corev1.PersistentVolumeClaim); ok && pvc.Namespace == naming.GoldenNamespace && pvc.Name == fixtures.Golden {
				pvc.Spec.VolumeName = ""
			}
		}
		src := &held{objs: objs}
		st, err := Read(context.Background(), src, plan.Needs(fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)), 0)
		require.NoError(t, err)
		assert.Empty(t, src.reads(state.PersistentVolume), "a claim bound to no volume has none to read")
		assert.Contains(t, st.Objects, ref(state.PersistentVolume, naming.GoldenNamespace, fixtures.Golden),
			"the claim was read: that it names no volume is known")
	})
}

func unverifiedKinds(ws guard.Warnings) []string {
	var out []string
	for _, w := range ws {
		if w.Reason == guard.StateUnverified {
			out = append(out, w.Kind)
		}
	}
	return out
}

func TestReadGoldenVolumesPriced(t *testing.T) {
	// Nine goldens, more than the limit: Calls lists every volume. With
	// pages of a source priced (PageSize), the list is weighed once the
	// claims are read against the nine volumes by name: the nine bound
	// claims listed are nine pages of one, or five of two.
	read := func(pageSize int) (*held, *state.State) {
		objs, pools, _ := goldens(DefaultLimit + 1)
		src := &held{objs: objs}
		st, _, err := ReadWith(context.Background(), src, plan.NeedsAll(pools), Options{PageSize: pageSize})
		require.NoError(t, err)
		return src, st
	}
	t.Run("ByName", func(t *testing.T) {
		src, st := read(1)
		_, _, volumes := goldens(DefaultLimit + 1)
		var want []Call
		for _, v := range volumes {
			want = append(want, Call{Get, state.PersistentVolume, "", v})
		}
		assert.ElementsMatch(t, want, src.reads(state.PersistentVolume), "nine volumes, and a list of nine pages: each volume by name")
		assert.False(t, st.Observed.Has(state.PersistentVolume), "volumes read by name observe no more than themselves")
		snap := state.NewSnapshot(st)
		for _, v := range volumes {
			assert.NotNil(t, stateindex.Of(snap).PersistentVolume(v), v)
			assert.Contains(t, st.Objects, ref(state.PersistentVolume, "", v))
		}
	})
	t.Run("Listed", func(t *testing.T) {
		src, st := read(2)
		assert.Equal(t, []Call{{List, state.PersistentVolume, "", ""}}, src.reads(state.PersistentVolume),
			"nine volumes, and a list of five pages: the list")
		assert.True(t, st.Observed.Has(state.PersistentVolume), "the list observes the kind")
	})
}

func TestReadInParallelReadsTheSame(t *testing.T) {
	objs, pools, _ := goldens(DefaultLimit + 1)
	objs = append(objs, fixtures.Cluster()...)
	req := plan.NeedsAll(append(pools, fleet.BuiltinPools(20, 10)...))
	for _, pageSize := range []int{0, 1} {
		serial := &held{objs: objs}
		want, wantUnread, err := ReadWith(context.Background(), serial, req, Options{PageSize: pageSize})
		require.NoError(t, err)
		parallel := &held{objs: objs}
		got, gotUnread, err := ReadWith(context.Background(), parallel, req, Options{PageSize: pageSize, Parallel: 4})
		require.NoError(t, err)
		assert.Equal(t, want, got, "page size %d: the calls in flight together read what they read one at a time", pageSize)
		assert.Equal(t, wantUnread, gotUnread)
		assert.ElementsMatch(t, serial.calls, parallel.calls, "and make the same calls")
	}
}

func TestAppendStateTakesEveryKind(t *testing.T) {
	src, dst := &state.State{}, &state.State{}
	v := reflect.ValueOf(src).Elem()
	slices := 0
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct && v.Type().Field(i).Name != "Objects" {
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			slices++
		}
	}
	appendState(dst, src)
	appendState(dst, src)
	d := reflect.ValueOf(dst).Elem()
	for i := range d.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Len() == 1 {
			assert.Equal(t, 2, d.Field(i).Len(), "%s is appended", d.Type().Field(i).Name)
		}
	}
	assert.Equal(t, 14, slices, "a State holds 14 kinds of object")
}
