// Package golden looks a golden DataVolume up in a snapshot of the
// cluster: whether it exists, how far its import has come, and the class,
// sizes and URL it has, with its catalog entry's values where the cluster
// has nothing yet. The planner and the catalog share it.
package golden

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// Presence says whether a golden exists.
type Presence int

const (
	// Unobserved: its DataVolume and PVC were not both observed and neither
	// was seen, so it may or may not exist.
	Unobserved Presence = iota
	// Absent: observed, neither its DataVolume nor its PVC exists.
	Absent
	// Present: its DataVolume or its PVC exists.
	Present
)

// Import is how far a present golden's import has come.
type Import int

const (
	// ImportUnknown: the golden is not present, or only its PVC was seen
	// while DataVolumes were not observed.
	ImportUnknown Import = iota
	// Populated: its DataVolume succeeded, or only its PVC is left (CDI
	// garbage-collected the completed DataVolume).
	Populated
	// Importing: any other phase, not failing.
	Importing
	// Stalled: still importing but failing (Running False with reason Error
	// or ImagePullFailed, or at least one importer restart, however many).
	Stalled
	// Failed: phase Failed. CDI waits for Succeeded whatever the importer's
	// restarts, and holds every clone of the golden until then
	// (controller/datavolume/pvc-clone-controller.go isSourceReadyToClone,
	// controller/common/util.go IsPopulated): restarts alone are Stalled.
	Failed
)

// Golden is a golden as the cluster has it, with the catalog entry's values
// where the cluster has nothing yet: what exists beats what the values say.
type Golden struct {
	Name       string
	Presence   Presence
	Import     Import
	DataVolume *cdiv1.DataVolume
	PVC        *corev1.PersistentVolumeClaim
	// NamedClass is the class the live golden's spec names (before it exists,
	// the entry's); ClaimClass is its PVC's class, bound or not.
	NamedClass string
	ClaimClass string
	// BoundKnown reports whether the golden's PVC was observed.
	BoundKnown bool
	// Request is the golden's requested size: the live DataVolume's, the
	// PVC's for a PVC-only golden, the entry's before it exists.
	Request resource.Quantity
	// Capacity is the bound PVC's capacity (zero when unbound or unknown).
	Capacity resource.Quantity
	// URL is the source URL: the live DataVolume's, the PVC's import
	// endpoint annotation for a PVC-only golden ("" when unknown), the
	// entry's before it exists.
	URL string
}

// Size is the larger of the request and the bound capacity: a clone target
// cannot be smaller than its source.
func (g *Golden) Size() resource.Quantity {
	if g.Capacity.Cmp(g.Request) > 0 {
		return g.Capacity
	}
	return g.Request
}

// ResolveClass resolves the golden's class: the class its spec names, else
// its bound PVC's (frozen), else the cluster default.
func (g *Golden) ResolveClass(def stateindex.Default) (storage.Resolution, error) {
	in := storage.Input{Named: g.NamedClass, BoundKnown: g.BoundKnown, Default: def.Name, DefaultKnown: def.Known}
	if g.ClaimClass != "" && g.NamedClass == "" {
		in.Bound = []string{g.ClaimClass}
	}
	return storage.Resolve(in)
}

// Expected is what a golden's catalog entry says of it: what the golden is
// taken to be before it exists.
type Expected struct {
	Class   string
	Request resource.Quantity
	URL     string
}

// Observe looks the golden name up in the cluster. e is its catalog entry's
// values; nil for a golden that no entry manages (then only what exists is
// known).
func Observe(name string, e *Expected, snap *state.Snapshot) Golden {
	return ObserveIn(naming.GoldenNamespace, name, e, snap)
}

// ObserveIn looks up a clone's source in namespace ns as Observe looks a
// golden up in cozy-public: a DataVolume, or the PVC it populated, that
// another disk clones (a VM disk cloned from another VM disk).
func ObserveIn(ns, name string, e *Expected, snap *state.Snapshot) Golden {
	ix := stateindex.Of(snap)
	d := ix.Disk(ns, name)
	dvKnown := ix.Covers(state.DataVolume, ns, name)
	pvcKnown := ix.Covers(state.PersistentVolumeClaim, ns, name)
	g := Golden{Name: name, DataVolume: d.DataVolume, PVC: d.PVC, BoundKnown: pvcKnown}
	switch {
	case d.DataVolume != nil || d.PVC != nil:
		g.Presence = Present
	case dvKnown && pvcKnown:
		g.Presence = Absent
	}
	if e != nil {
		g.NamedClass, g.Request, g.URL = e.Class, e.Request, e.URL
	}
	if p := d.PVC; p != nil {
		// A PVC names its class from its creation on, bound or not: CDI
		// clones with that class's driver once it binds.
		if p.Spec.StorageClassName != nil {
			g.ClaimClass = *p.Spec.StorageClassName
		}
		if p.Status.Phase == corev1.ClaimBound {
			g.Capacity = p.Status.Capacity[corev1.ResourceStorage]
		}
	}
	switch dv := d.DataVolume; {
	case dv != nil:
		g.NamedClass = stateindex.DataVolumeClass(dv)
		g.Request = dataVolumeRequest(dv)
		g.URL = ""
		if s := dv.Spec.Source; s != nil && s.HTTP != nil {
			g.URL = s.HTTP.URL
		}
		g.Import = importOf(dv)
	case d.PVC != nil:
		p := d.PVC
		g.NamedClass = ""
		if p.Spec.StorageClassName != nil {
			g.NamedClass = *p.Spec.StorageClassName
		}
		g.Request = p.Spec.Resources.Requests[corev1.ResourceStorage]
		g.URL = p.Annotations[naming.ImportEndpointAnnotation]
		if dvKnown {
			g.Import = Populated
		}
	}
	return g
}

func dataVolumeRequest(dv *cdiv1.DataVolume) resource.Quantity {
	if s := dv.Spec.Storage; s != nil {
		return s.Resources.Requests[corev1.ResourceStorage]
	}
	if p := dv.Spec.PVC; p != nil {
		return p.Resources.Requests[corev1.ResourceStorage]
	}
	return resource.Quantity{}
}

// importOf reads a golden DataVolume's status: Succeeded is populated, Failed
// failed, a Running condition False with restarts or an error reason
// stalled, anything else importing.
func importOf(dv *cdiv1.DataVolume) Import {
	switch dv.Status.Phase {
	case cdiv1.Succeeded:
		return Populated
	case cdiv1.Failed:
		return Failed
	}
	running := runningCondition(dv)
	if running == nil || running.Status != corev1.ConditionFalse {
		return Importing
	}
	if dv.Status.RestartCount >= 1 || running.Reason == "Error" || running.Reason == "ImagePullFailed" {
		return Stalled
	}
	return Importing
}

func runningCondition(dv *cdiv1.DataVolume) *cdiv1.DataVolumeCondition {
	for i := range dv.Status.Conditions {
		if dv.Status.Conditions[i].Type == cdiv1.DataVolumeRunning {
			return &dv.Status.Conditions[i]
		}
	}
	return nil
}
