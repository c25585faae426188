package clusterread

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// scripted answers each call with the error scripted for it, nil otherwise,
// and adds no object: these tests are about what the State says was read.
type scripted map[Call]error

func (s scripted) List(_ context.Context, k state.Kind, ns string, _ *state.State) error {
	return s[Call{List, k, ns, ""}]
}

func (s scripted) Get(_ context.Context, k state.Kind, ns, name string, _ *state.State) error {
	return s[Call{Get, k, ns, name}]
}

var (
	dvs     = schema.GroupResource{Group: "cdi.kubevirt.io", Resource: "datavolumes"}
	classes = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}
	// unrouted is the error client-go makes of the plain "404 page not
	// found" of a path the server does not serve.
	unrouted = apierrors.NewGenericServerResponse(404, "GET", dvs, "g", "404 page not found", 0, true)
)

func ref(k state.Kind, ns, name string) state.Ref {
	return state.Ref{Kind: k, Namespace: ns, Name: name}
}

// poolRequest is what one pool in namespace t needs: its golden g by name
// (the PersistentVolume get names the claim whose volume is read), its
// namespace's disks and the cluster-scoped kinds.
var poolRequest = state.Request{
	Gets: []state.Ref{
		ref(state.PersistentVolumeClaim, "cozy-public", "g"), ref(state.DataVolume, "cozy-public", "g"),
		ref(state.PersistentVolume, "cozy-public", "g"),
	},
	Lists: []state.Ref{
		ref(state.StorageClass, "", ""), ref(state.PersistentVolumeClaim, "t", ""), ref(state.DataVolume, "t", ""),
		ref(state.StorageProfile, "", ""), ref(state.CDI, "", ""), ref(state.CSIDriver, "", ""),
		ref(state.VolumeSnapshotClass, "", ""), ref(state.CDIConfig, "", ""),
	},
}

// byName is what a read observes of the golden's volume: only the objects
// read by name, never the kind.
const byName = state.PlanKinds &^ state.PersistentVolume

func TestReadRecordsWhatWasRead(t *testing.T) {
	golden := func(k state.Kind) state.Ref { return state.Ref{Kind: k, Namespace: "cozy-public", Name: "g"} }
	cases := map[string]struct {
		reason     string
		script     scripted
		observed   state.Kind
		namespaces []string
		objects    []state.Ref
	}{
		"AllRead": {
			reason: "everything answered: every listed kind observed, PVCs and DataVolumes in the pool's namespace, " +
				"the golden by name, and its claim's volume (none: the claim read names none) known",
			script:     scripted{Call{Get, state.DataVolume, "cozy-public", "g"}: apierrors.NewNotFound(dvs, "g")},
			observed:   byName,
			namespaces: []string{"t"},
			objects:    []state.Ref{golden(state.PersistentVolumeClaim), golden(state.DataVolume), golden(state.PersistentVolume)},
		},
		"ForbiddenStorageClasses": {
			reason:     "a Forbidden list leaves its kind unknown, never empty",
			script:     scripted{Call{List, state.StorageClass, "", ""}: apierrors.NewForbidden(classes, "", errors.New("rbac"))},
			observed:   byName &^ state.StorageClass,
			namespaces: []string{"t"},
			objects:    []state.Ref{golden(state.PersistentVolumeClaim), golden(state.DataVolume), golden(state.PersistentVolume)},
		},
		"CDINotInstalled": {
			reason: "a kind the server does not serve is unknown; its gets are not even tried",
			script: scripted{
				Call{List, state.DataVolume, "t", ""}:           apierrors.NewNotFound(dvs, ""),
				Call{List, state.StorageProfile, "", ""}:        &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}},
				Call{List, state.CDI, "", ""}:                   unrouted,
				Call{List, state.CDIConfig, "", ""}:             &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDIConfig"}},
				Call{Get, state.DataVolume, "cozy-public", "g"}: errors.New("must not be called"),
			},
			observed:   state.StorageClass | state.PersistentVolumeClaim | state.CSIDriver | state.VolumeSnapshotClass,
			namespaces: []string{"t"},
			objects:    []state.Ref{golden(state.PersistentVolumeClaim), golden(state.PersistentVolume)},
		},
		"UnroutedGet": {
			reason:     "a get's 404 that is the router's, not the object's, proves nothing absent",
			script:     scripted{Call{Get, state.DataVolume, "cozy-public", "g"}: unrouted},
			observed:   byName,
			namespaces: []string{"t"},
			objects:    []state.Ref{golden(state.PersistentVolumeClaim), golden(state.PersistentVolume)},
		},
		"ForbiddenGolden": {
			reason:     "a golden the reader may not see is unknown, not absent, and so is the volume of its claim",
			script:     scripted{Call{Get, state.PersistentVolumeClaim, "cozy-public", "g"}: apierrors.NewForbidden(classes, "g", errors.New("rbac"))},
			observed:   byName,
			namespaces: []string{"t"},
			objects:    []state.Ref{golden(state.DataVolume)},
		},
		"ForbiddenNamespace": {
			reason:     "a namespace whose DataVolumes are forbidden leaves DataVolumes unknown; PVCs stay observed there",
			script:     scripted{Call{List, state.DataVolume, "t", ""}: apierrors.NewForbidden(dvs, "", errors.New("rbac"))},
			observed:   byName &^ state.DataVolume,
			namespaces: []string{"t"},
			objects:    []state.Ref{golden(state.PersistentVolumeClaim), golden(state.DataVolume), golden(state.PersistentVolume)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st, err := Read(context.Background(), tc.script, poolRequest, 0)
			require.NoError(t, err, tc.reason)
			assert.Equal(t, tc.observed.String(), st.Observed.String(), tc.reason)
			assert.Equal(t, tc.namespaces, st.Namespaces, tc.reason)
			assert.Equal(t, tc.objects, st.Objects, tc.reason)
		})
	}
}

func TestReadScopeIsWhereEveryKindWasRead(t *testing.T) {
	req := state.Request{Lists: []state.Ref{
		ref(state.PersistentVolumeClaim, "a", ""), ref(state.DataVolume, "a", ""),
		ref(state.PersistentVolumeClaim, "b", ""), ref(state.DataVolume, "b", ""),
	}, Gets: []state.Ref{ref(state.PersistentVolumeClaim, "b", "disk")}}
	st, err := Read(context.Background(), scripted{
		Call{List, state.DataVolume, "b", ""}: apierrors.NewForbidden(dvs, "", errors.New("rbac")),
	}, req, 0)
	require.NoError(t, err)
	assert.Equal(t, state.PersistentVolumeClaim|state.DataVolume, st.Observed)
	assert.Equal(t, []string{"a"}, st.Namespaces, "b's DataVolumes are unknown, so b is out of the shared scope")
	assert.Equal(t, []state.Ref{ref(state.PersistentVolumeClaim, "b", "disk")}, st.Objects,
		"b's PVC list still answers the get of a PVC there")

	snap := state.NewSnapshot(st)
	assert.True(t, stateindex.Of(snap).Covers(state.PersistentVolumeClaim, "b", "disk"))
	assert.False(t, stateindex.Of(snap).Covers(state.DataVolume, "b", "disk"))
	assert.True(t, stateindex.Of(snap).CoversNamespace(state.DataVolume, "a"))
}

func TestReadFailures(t *testing.T) {
	cases := map[string]struct {
		reason string
		err    error
		is     func(error) bool
	}{
		"Timeout": {
			reason: "a server timeout is retried, not planned around",
			err:    apierrors.NewTimeoutError("slow", 1),
			is:     apierrors.IsTimeout,
		},
		"ServerError": {
			reason: "a 5xx is retried",
			err:    apierrors.NewInternalError(errors.New("etcd")),
			is:     apierrors.IsInternalError,
		},
		"Unavailable": {
			reason: "a 503 is retried",
			err:    apierrors.NewServiceUnavailable("starting"),
			is:     apierrors.IsServiceUnavailable,
		},
		"Unauthorized": {
			reason: "bad credentials say nothing of a kind: an error, not unknown",
			err:    apierrors.NewUnauthorized("token expired"),
			is:     apierrors.IsUnauthorized,
		},
		"Cancelled": {
			reason: "a cancelled context is an error",
			err:    context.Canceled,
			is:     func(err error) bool { return errors.Is(err, context.Canceled) },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st, err := Read(context.Background(), scripted{Call{List, state.StorageClass, "", ""}: tc.err}, poolRequest, 0)
			assert.Nil(t, st, tc.reason)
			var re *ReadError
			require.True(t, errors.As(err, &re), "%s: want *ReadError, got %T", tc.reason, err)
			assert.Equal(t, Call{List, state.StorageClass, "", ""}, Call{re.Verb, re.Kind, re.Namespace, re.Name})
			assert.True(t, tc.is(err), "%s: the client's error is unwrappable", tc.reason)
		})
	}
}

func TestReadNoClient(t *testing.T) {
	st, err := Read(context.Background(), scripted{
		Call{List, state.DataVolume, "t", ""}:           ErrNoClient,
		Call{Get, state.DataVolume, "cozy-public", "g"}: ErrNoClient,
	}, poolRequest, 0)
	require.NoError(t, err)
	assert.False(t, st.Observed.Has(state.DataVolume), "a kind without a client is unknown")
}

func TestReadErrorNamesTheRead(t *testing.T) {
	cause := errors.New("timeout")
	for _, e := range []*ReadError{
		{Verb: List, Kind: state.StorageClass, Err: cause},
		{Verb: List, Kind: state.DataVolume, Namespace: "t", Err: cause},
		{Verb: Get, Kind: state.DataVolume, Namespace: "cozy-public", Name: "g", Err: cause},
		{Verb: Get, Kind: state.CDI, Name: "cdi", Err: cause},
	} {
		assert.Contains(t, e.Error(), e.Kind.String())
		assert.Contains(t, e.Error(), e.Namespace)
		assert.Contains(t, e.Error(), e.Name)
		assert.ErrorIs(t, e, cause)
	}
}
