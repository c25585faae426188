package clientgo

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// ReadError is a read that failed for a reason that is not a refusal (a
// timeout, a server error, a cancelled context): requeue and read again.
type ReadError = clusterread.ReadError

// pageSize bounds one list response, as kubectl does: a cluster-wide list of
// every PVC arrives in pages, still one LIST to count.
const pageSize = 500

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
	// cluster-wide list replaces them; 0 means clusterread.DefaultLimit (8).
	Limit int
	// Discovery, when set, is asked first which kinds the server serves:
	// an endpoint that does not answer discovery as a Kubernetes API
	// server does is a *NotAPIServerError, a kind is "not served" only when
	// discovery says so, and a 404 on a kind it serves is a failed read
	// (SPEC section 11). Nil takes a 404 on a list for the kind not being
	// served, as readers without discovery must.
	Discovery discovery.DiscoveryInterface
}

// NotAPIServerError is an endpoint that is not a Kubernetes API server:
// its discovery fails, or serves no core group v1.
type NotAPIServerError = clusterread.NotAPIServerError

// Unread is a kind a read left unknown and why (forbidden, with the verb
// and resource; not served; no client): what a StateUnverified's cause
// says.
type Unread = clusterread.Unread

// New returns a Reader over the two clients.
func New(core kubernetes.Interface, dyn dynamic.Interface) *Reader {
	return &Reader{Core: core, Dynamic: dyn}
}

// Read reads what req asks for and returns it as a State in which every
// kind it could not read (no permission, not served) is unknown. An error
// is a *ReadError: the read should be retried.
func (r *Reader) Read(ctx context.Context, req state.Request) (*state.State, error) {
	st, _, err := r.ReadExplained(ctx, req)
	return st, err
}

// ReadExplained is Read, and says why each kind it left unknown is. With
// Discovery set it asks discovery first: its error is then a
// *NotAPIServerError, a *ReadError, or discovery's own failure.
func (r *Reader) ReadExplained(ctx context.Context, req state.Request) (*state.State, []Unread, error) {
	opts := clusterread.Options{Limit: r.Limit}
	if r.Discovery != nil {
		d, err := clusterread.Discover(r.Discovery)
		if err != nil {
			return nil, nil, err
		}
		served, err := d.Kinds(requested(req))
		if err != nil {
			return nil, nil, err
		}
		opts.Served = &served
	}
	return clusterread.ReadWith(ctx, source{r}, req, opts)
}

var _ state.Reader = (*Reader)(nil)

type source struct{ r *Reader }

var _ clusterread.Source = source{}

func (s source) List(ctx context.Context, k state.Kind, ns string, into *state.State) error {
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		next, err := s.page(ctx, k, ns, opts, into)
		if err != nil || next == "" {
			return err
		}
		opts.Continue = next
	}
}

// page reads one page of a list and returns the continue token.
func (s source) page(ctx context.Context, k state.Kind, ns string, opts metav1.ListOptions, into *state.State) (string, error) {
	core := s.r.Core
	switch k {
	case state.StorageClass:
		l, err := core.StorageV1().StorageClasses().List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.StorageClasses = append(into.StorageClasses, l.Items...)
		return l.Continue, nil
	case state.PersistentVolumeClaim:
		l, err := core.CoreV1().PersistentVolumeClaims(ns).List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.PersistentVolumeClaims = append(into.PersistentVolumeClaims, l.Items...)
		return l.Continue, nil
	case state.CSIDriver:
		l, err := core.StorageV1().CSIDrivers().List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.CSIDrivers = append(into.CSIDrivers, l.Items...)
		return l.Continue, nil
	case state.PersistentVolume:
		l, err := core.CoreV1().PersistentVolumes().List(ctx, opts)
		if err != nil {
			return "", err
		}
		into.PersistentVolumes = append(into.PersistentVolumes, l.Items...)
		return l.Continue, nil
	}
	if s.r.Dynamic == nil {
		return "", clusterread.ErrNoClient
	}
	info := kinds.Of(k)
	l, err := s.r.Dynamic.Resource(info.GVR()).Namespace(ns).List(ctx, opts)
	if err != nil {
		return "", err
	}
	for i := range l.Items {
		if err := kinds.AppendUnstructured(into, k, l.Items[i].Object); err != nil {
			return "", err
		}
	}
	return l.GetContinue(), nil
}

func (s source) Get(ctx context.Context, k state.Kind, ns, name string, into *state.State) error {
	core := s.r.Core
	var opts metav1.GetOptions
	switch k {
	case state.StorageClass:
		o, err := core.StorageV1().StorageClasses().Get(ctx, name, opts)
		if err == nil {
			into.StorageClasses = append(into.StorageClasses, *o)
		}
		return err
	case state.PersistentVolumeClaim:
		o, err := core.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, opts)
		if err == nil {
			into.PersistentVolumeClaims = append(into.PersistentVolumeClaims, *o)
		}
		return err
	case state.CSIDriver:
		o, err := core.StorageV1().CSIDrivers().Get(ctx, name, opts)
		if err == nil {
			into.CSIDrivers = append(into.CSIDrivers, *o)
		}
		return err
	case state.PersistentVolume:
		o, err := core.CoreV1().PersistentVolumes().Get(ctx, name, opts)
		if err == nil {
			into.PersistentVolumes = append(into.PersistentVolumes, *o)
		}
		return err
	}
	if s.r.Dynamic == nil {
		return clusterread.ErrNoClient
	}
	o, err := s.r.Dynamic.Resource(kinds.Of(k).GVR()).Namespace(ns).Get(ctx, name, opts)
	if err != nil {
		return err
	}
	return kinds.AppendUnstructured(into, k, o.Object)
}

// requested is the kinds req reads.
func requested(req state.Request) state.Kind {
	var k state.Kind
	for _, r := range append(req.Lists, req.Gets...) {
		k |= r.Kind
	}
	return k
}
