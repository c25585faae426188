package clientgo

import (
	"context"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Reader reads cluster state through client-go: the core kinds through a
// typed clientset, the custom resources through a dynamic client.
type Reader struct {
	// Core reads StorageClasses, PersistentVolumeClaims, CSIDrivers and
	// PersistentVolumes.
	Core kubernetes.Interface
	// Dynamic reads the custom resources: CDI's kinds (DataVolumes,
	// StorageProfiles, the CDI resource, CDIConfig, DataSources), the
	// VolumeSnapshotClasses, VirtualMachines and KubevirtMachineTemplates.
	// Nil leaves those kinds unknown.
	Dynamic dynamic.Interface
	// Limit is the most requests one kind gets before a single
	// cluster-wide list replaces them; 0 means 8.
	Limit int
	// Discovery, when set, is asked first which kinds the server serves:
	// an endpoint that does not answer discovery as a Kubernetes API
	// server does is a *NotAPIServerError, a kind is "not served" only when
	// discovery says so, and a 404 on a kind it serves is a failed read,
	// not an unknown kind. Nil takes a 404 on a list for the kind not being
	// served, as readers without discovery must.
	Discovery discovery.DiscoveryInterface
}

// New returns a Reader over the two clients.
func New(core kubernetes.Interface, dyn dynamic.Interface) *Reader {
	return &Reader{Core: core, Dynamic: dyn}
}

// Read reads what req asks for and returns it as a State in which every
// kind it could not read (no permission, not served) is unknown. An error
// is a read that failed for a reason that is not a refusal (a timeout, a
// server error, a cancelled context; errors.Is finds the cause): the read
// should be retried. With Discovery set, an endpoint that is not a
// Kubernetes API server is a *NotAPIServerError.
func (r *Reader) Read(ctx context.Context, req state.Request) (*state.State, error) {
	st, _, err := clusterread.ReadClientGo(ctx, clusterread.ClientGo{Core: r.Core, Dynamic: r.Dynamic}, r.Discovery, r.Limit, req)
	return st, public(err)
}

var _ state.Reader = (*Reader)(nil)
