package clientgo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakediscovery "k8s.io/client-go/discovery/fake"

	"github.com/cozystack/kubernetes-worker-image/adapters/clientgo"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// withoutCDI is the discovery of a cluster that has no CDI installed.
func withoutCDI(d *fakediscovery.FakeDiscovery) {
	d.Resources = []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "persistentvolumeclaims"}, {Name: "persistentvolumes"}}},
		{GroupVersion: "storage.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "storageclasses"}, {Name: "csidrivers"}}},
		{GroupVersion: "snapshot.storage.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "volumesnapshotclasses"}}},
	}
}

func TestDiscovery(t *testing.T) {
	cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
	d := cs.Discovery().(*fakediscovery.FakeDiscovery)
	withoutCDI(d)
	cs.PrependReactor("list", "storageclasses", forbidden("storageclasses"))
	r := clientgo.New(cs, dyn)
	r.Discovery = d
	st, unread, err := r.ReadExplained(context.Background(), plan.Needs(pool))
	require.NoError(t, err)
	assert.Equal(t, (state.PersistentVolumeClaim | state.CSIDriver | state.VolumeSnapshotClass).String(), st.Observed.String())
	causes := map[state.Kind]string{}
	for _, u := range unread {
		causes[u.Kind] = u.String()
	}
	assert.Equal(t, "forbidden: cannot list storageclasses.storage.k8s.io (cluster-wide)", causes[state.StorageClass])
	assert.Equal(t, "not served: the API server serves no group cdi.kubevirt.io", causes[state.DataVolume])
	for _, a := range dyn.Actions() {
		if a.GetResource().Group == "cdi.kubevirt.io" {
			t.Errorf("no call of a kind discovery says is not served: %v", a)
		}
	}

	d.Resources = nil
	_, _, err = r.ReadExplained(context.Background(), plan.Needs(pool))
	var nas *clientgo.NotAPIServerError
	assert.True(t, errors.As(err, &nas), "a server whose discovery lists nothing is no API server: %v", err)
	_, err = r.Read(context.Background(), plan.Needs(pool))
	require.True(t, errors.As(err, &nas), "Read says so too: %v", err)
	assert.True(t, strings.HasPrefix(nas.Error(), "not a Kubernetes API server: discovery of /api failed: "), nas.Error())
	assert.NotNil(t, errors.Unwrap(nas), "it unwraps to the failed request's error")
}
