package apiserver_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// pools covers every outcome against fixtures.Cluster: a pool that has
// already cloned (on its explicit class, and on "" frozen from its
// disks), a new pool on the cluster default, one on another class than
// the golden's, one too small for the golden, one pinned to a flavor the
// catalog dropped, and one on the HTTP path.
func pools() []plan.Pool {
	tenant := fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)
	frozen := fleet.BuiltinPool(fixtures.TenantNamespace, fixtures.ClusterName)
	frozen.Spec.StorageClass = ""
	onDefault := fleet.BuiltinPool(fixtures.OtherNamespace, "db")
	onDefault.Spec.StorageClass = ""
	onLocal := fleet.BuiltinPool(fixtures.OtherNamespace, "edge")
	onLocal.Spec.StorageClass = fixtures.LocalClass
	small := fleet.BuiltinPool(fixtures.OtherNamespace, "small")
	small.Spec.DiskSize = "5Gi"
	old := fleet.BuiltinPool("tenant-old", "legacy")
	old.Spec.OSImage.Builtin = &catalog.Flavor{Version: fixtures.OldVersion}
	http := plan.Pool{Namespace: fixtures.OtherNamespace, Name: "web-md0", Spec: plan.DefaultPoolSpec("web")}
	return []plan.Pool{tenant, frozen, onDefault, onLocal, small, old, http}
}

func TestAdaptersAgree(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	ps := pools()
	req := plan.NeedsAll(ps)
	cache := e.Cache(t, e.Config)

	cg, err := clientGo(t, e.Config, req)
	require.NoError(t, err)
	cr, err := controllerRuntime(cache, req)
	require.NoError(t, err)
	got := agree(t, ps, fromFile(t, e), map[string]*state.State{"client-go": cg, "controller-runtime (cache)": cr})

	assert.Equal(t, []verdict{
		{Outcome: plan.Planned, Class: "replicated explicit"},
		{Outcome: plan.Planned, Class: "replicated frozen"},
		{Outcome: plan.Planned, Class: "replicated default"},
		{Outcome: plan.Refused, Refusals: []string{"StorageClassMismatch storageClass"}},
		{Outcome: plan.Refused, Refusals: []string{"DiskSmallerThanGolden diskSize"}},
		{Outcome: plan.Refused, Refusals: []string{"GoldenNotInCatalog osImage.builtin"}},
		{Outcome: plan.Planned, Class: "replicated explicit"},
	}, verdicts(got), "the pools cover both outcomes and several refusals")
}

// The manifests adapter reads what kubectl itself prints of a real server
// as it reads the objects the suite lists.
func TestManifestsReadKubectlOutput(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	out := e.Kubectl(t, "get", "storageclasses,csidrivers,persistentvolumeclaims,datavolumes,storageprofiles,cdis,"+
		"volumesnapshotclasses,cdiconfigs,persistentvolumes", "--all-namespaces", "-o", "yaml")
	rr, err := manifests.Read("kubectl.yaml", bytes.NewReader(out))
	st, notes := rr.State, rr.Notes
	require.NoError(t, err)
	assert.Empty(t, notes)
	ps := pools()
	agree(t, ps, fromFile(t, e), map[string]*state.State{"kubectl get -o yaml": st})
}
