package clientgo_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/clientgo"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/slim"
	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// slimmed runs every object of st through the transform client-go's pages
// go through, in place.
func slimmed(t *testing.T, st *state.State) *state.State {
	t.Helper()
	each := func(o any) {
		_, err := slim.Transform(o)
		require.NoError(t, err)
	}
	for i := range st.StorageClasses {
		each(&st.StorageClasses[i])
	}
	for i := range st.PersistentVolumeClaims {
		each(&st.PersistentVolumeClaims[i])
	}
	for i := range st.DataVolumes {
		each(&st.DataVolumes[i])
	}
	for i := range st.StorageProfiles {
		each(&st.StorageProfiles[i])
	}
	for i := range st.CDIs {
		each(&st.CDIs[i])
	}
	for i := range st.CSIDrivers {
		each(&st.CSIDrivers[i])
	}
	for i := range st.VolumeSnapshotClasses {
		each(&st.VolumeSnapshotClasses[i])
	}
	for i := range st.CDIConfigs {
		each(&st.CDIConfigs[i])
	}
	for i := range st.PersistentVolumes {
		each(&st.PersistentVolumes[i])
	}
	for i := range st.KubevirtMachineTemplates {
		each(&st.KubevirtMachineTemplates[i])
	}
	for i := range st.VirtualMachines {
		each(&st.VirtualMachines[i])
	}
	for i := range st.DataSources {
		each(&st.DataSources[i])
	}
	return st
}

// TestReadsWhatTheFileHolds: read cluster-wide, client-go holds the
// objects a kubectl dump of the same cluster holds, slimmed as a cache
// slims them (what no plan reads dropped), and nothing else differs.
func TestReadsWhatTheFileHolds(t *testing.T) {
	objs := fixtures.Cluster()
	file, err := manifests.Read("state.yaml", bytes.NewReader(fixtures.ListYAML(objs...)))
	require.NoError(t, err)
	require.Empty(t, file.Notes)

	all := state.Request{Lists: []state.Ref{
		{Kind: state.StorageClass}, {Kind: state.PersistentVolumeClaim}, {Kind: state.DataVolume},
		{Kind: state.StorageProfile}, {Kind: state.CDI}, {Kind: state.CSIDriver},
		{Kind: state.VolumeSnapshotClass}, {Kind: state.CDIConfig}, {Kind: state.PersistentVolume},
		{Kind: state.KubevirtMachineTemplate}, {Kind: state.VirtualMachine}, {Kind: state.DataSource},
		{Kind: state.KubernetesNodes}, {Kind: state.HelmRelease},
	}}
	cs, dyn := fixtures.ClientGo(objs...)
	got, err := clientgo.New(cs, dyn).Read(context.Background(), all)
	require.NoError(t, err)

	want := fixtures.WithoutServerFields(slimmed(t, file.State))
	assert.Equal(t, want, fixtures.WithoutServerFields(got))
	assert.NotEmpty(t, got.PersistentVolumeClaims, "the cluster holds disks")
}
