package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// setCloneStrategy writes the status.cloneStrategy of the StorageProfile of
// class, as CDI's profile controller does, and returns the profile written.
func setCloneStrategy(t *testing.T, e *apiserver.Env, class string, s cdiv1.CDICloneStrategy) *cdiv1.StorageProfile {
	t.Helper()
	var p cdiv1.StorageProfile
	require.NoError(t, e.Client.Get(context.Background(), client.ObjectKey{Name: class}, &p))
	p.Status.CloneStrategy = &s
	require.NoError(t, e.Client.Status().Update(context.Background(), &p))
	return &p
}

// A cluster whose CDI resource sets no cloneStrategyOverride clones with
// the strategy of the disk class's StorageProfile status. On
// snapshot, CDI needs a VolumeSnapshotClass of the CSI driver both volumes
// share: without one it copies host-assisted ("No compatible
// volumesnapshotclass found"), so the pool is refused HostAssistedClone;
// a class of another driver is none; with one of the driver the pool
// plans. Both live readers, the client-go one and a manager's cache, plan
// exactly as the file of the same objects does.
func TestSnapshotStrategy(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	var cdi cdiv1.CDI
	require.NoError(t, e.Client.Get(context.Background(), client.ObjectKey{Name: "cdi"}, &cdi))
	require.Nil(t, cdi.Spec.CloneStrategyOverride, "the fixture's CDI resource sets no override")

	cache := e.Cache(t, e.Config)
	t.Cleanup(func() { setCloneStrategy(t, e, fixtures.ReplicatedClass, cdiv1.CloneStrategyCsiClone) })
	apiserver.WaitCached(t, cache, setCloneStrategy(t, e, fixtures.ReplicatedClass, cdiv1.CloneStrategySnapshot))

	cloned := fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)
	fresh := fleet.BuiltinPool(fixtures.OtherNamespace, "db")
	ps := []plan.Pool{cloned, fresh}
	req := plan.NeedsAll(ps)
	refused := verdict{Outcome: plan.Refused, Refusals: []string{"HostAssistedClone storageClass"}}
	planned := verdict{Outcome: plan.Planned, Class: "replicated explicit"}

	steps := []struct {
		reason string
		create []client.Object
		want   verdict
	}{{
		reason: "no VolumeSnapshotClass at all",
		want:   refused,
	}, {
		reason: "a VolumeSnapshotClass of another driver is none of the golden's",
		create: []client.Object{fixtures.SnapshotClass("openebs-snapshots", fixtures.LocalProvisioner, true)},
		want:   refused,
	}, {
		reason: "a VolumeSnapshotClass of the driver: CDI snapshots the golden",
		create: []client.Object{fixtures.SnapshotClass("linstor-snapshots", fixtures.ReplicatedProvisioner, false)},
		want:   planned,
	}}
	for _, step := range steps {
		t.Run(step.reason, func(t *testing.T) {
			e.Create(t, step.create...)
			deleted(t, e, step.create...)
			apiserver.WaitCached(t, cache, step.create...)
			cg, err := clientGo(t, e.Config, req)
			require.NoError(t, err)
			cr, err := controllerRuntime(cache, req)
			require.NoError(t, err)
			live := map[string]*state.State{"client-go": cg, "controller-runtime (cache)": cr}
			for name, st := range live {
				assert.True(t, st.Observed.Has(state.VolumeSnapshotClass|state.CDI|state.StorageProfile), "%s read the kinds the strategy rests on", name)
			}
			got := agree(t, ps, fromFile(t, e), live)
			assert.Equal(t, []verdict{step.want, step.want}, verdicts(got), step.reason)
			for _, r := range got {
				for _, f := range r.Refusals {
					if f.Reason == guard.HostAssistedClone {
						assert.True(t, strings.Contains(f.Error(), "NoVolumeSnapshotClass"), "%s/%s: the refusal names CDI's reason: %v", r.Namespace, r.Name, f)
					}
				}
			}
		})
	}
}
