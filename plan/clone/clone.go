package clone

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cloneguard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// Method is how CDI v1.64.0 puts the source's data into the disk.
type Method string

const (
	// CSIClone: the CSI driver clones the source's volume.
	CSIClone Method = "csi-clone"
	// SnapshotClone: CDI snapshots the source's volume and restores the
	// snapshot as the disk.
	SnapshotClone Method = "snapshot"
	// HostAssisted: CDI copies the data over the pod network, a pod
	// reading the source and another writing the disk.
	HostAssisted Method = "host-assisted"
	// NeverRenders: CDI never creates the disk's PVC.
	NeverRenders Method = "never-renders"
	// Unknown: the plan could not tell: what decides it was not observed,
	// or CDI never gets as far (the source failed, the size is refused).
	Unknown Method = "unknown"
)

// Result is what CDI v1.64.0 will do with a DataVolume that clones a PVC.
type Result struct {
	Namespace string       `json:"namespace"`
	Name      string       `json:"name"`
	Outcome   plan.Outcome `json:"outcome"`
	// Source is the PVC cloned, "<namespace>/<name>": the one spec.source.pvc
	// names, or the one the DataSource of spec.sourceRef names; "" when
	// none is known.
	Source string `json:"source"`
	// Method is how CDI puts the data into the disk, and Why CDI's reason
	// for a copy over the pod network or for never rendering the PVC.
	Method Method `json:"method"`
	Why    string `json:"why,omitempty"`
	// Waits: CDI holds the clone until the source is ready (it does not
	// exist yet, is importing, is not bound, or its volume names another
	// claim). Predicted: the source's PVC is not bound yet, and what rests
	// on it is the PVC CDI will render for it.
	Waits     bool `json:"waits"`
	Predicted bool `json:"predicted"`
	// StorageClass is the class the disk binds on, and where it came from
	// (Cluster when it names none and the default is unknown);
	// SourceClass the class the source lives on.
	StorageClass storage.Resolution `json:"storageClass"`
	SourceClass  storage.Resolution `json:"sourceClass"`
	Warnings     guard.Warnings     `json:"warnings"`
	Refusals     guard.Refusals     `json:"refusals"`
}

// The DataVolume's fields the findings are at.
var (
	pathSource      = field.NewPath("spec", "source")
	pathSourcePVC   = pathSource.Child("pvc")
	pathSourceRef   = field.NewPath("spec", "sourceRef")
	pathAnnotations = field.NewPath("metadata", "annotations")
	pathStorage     = field.NewPath("spec", "storage")
	pathClass       = pathStorage.Child("storageClassName")
	pathSize        = pathStorage.Child("resources", "requests", "storage")

	words = cloneguard.Words{
		Disks: "the DataVolume", Disk: "the DataVolume's PVC", Owner: "the DataVolume",
		ClassField: pathClass.String(), SizeField: pathSize.String(), SizeExample: "1Gi",
		MismatchFix: "set " + pathClass.String() + ": %[1]s, the class the source lives on",
	}
)

// Plan says what CDI v1.64.0 will do with dv, a DataVolume of the storage
// API whose source is a PVC (spec.source.pvc) or a DataSource that names
// one (spec.sourceRef), against a snapshot of the cluster: whether it
// clones at the storage layer (CSI clone, snapshot), copies over the pod
// network and why, never renders its PVC and why, or waits for its
// source. Each clone CDI would never finish, or would turn into a copy,
// is a typed refusal at the DataVolume's field: the source missing its
// import or failed (GoldenImportFailed at spec.source.pvc), no default
// class CDI reads, a class that does not exist or that CDI cannot render
// (spec.storage.storageClassName), a class other than the source's
// (StorageClassMismatch, its message saying what CDI would do), each
// proven cause of a host-assisted copy (HostAssistedClone), a size the
// clone fails for (DiskSmallerThanGolden at
// spec.storage.resources.requests.storage). Warnings say what waits
// (GoldenPending), what binds per node, and which kinds were not observed
// (StateUnverified, naming the kind).
//
// A DataVolume that is not a clone of a PVC, that uses the pvc API or
// sets its own volume mode or access modes, or that states no size is
// refused InvalidValue or InvalidQuantity at the field: the plan judges
// what CDI renders from the class's StorageProfile. For example, a
// DataVolume on class local cloning cozy-public/golden on class
// replicated, one CSI driver, is refused StorageClassMismatch: CDI would
// attempt a cross-class CSI clone that a WaitForFirstConsumer class of
// LINSTOR leaves pending for ever.
//
// The refusals come back on the result and as the error, nil when
// planned: errors.Is(err, guard.HostAssistedClone) asks for a reason. A
// nil snapshot knows nothing of the cluster. Plan does no I/O, does not
// modify its inputs and is safe for concurrent use.
func Plan(dv *cdiv1.DataVolume, snap *state.Snapshot) (Result, error) {
	if snap == nil {
		snap = emptySnapshot
	}
	var c findings.Collector
	res := Result{Method: Unknown, StorageClass: storage.Resolution{From: storage.Cluster}}
	if dv == nil {
		c.Refuse(guard.InvalidValue, nil, nil, "no DataVolume to plan; pass the DataVolume that clones a PVC")
		res.Refusals = c.Refusals()
		res.Outcome = plan.Refused
		return res, res.Refusals.Err()
	}
	res.Namespace, res.Name = dv.Namespace, dv.Name
	var unverified state.Kind
	if req, ok := request(dv, snap, &c, &unverified); ok {
		res.Source = req.Source.Namespace + "/" + req.Source.Name
		v := cloneguard.Judge(&req, snap)
		c.Merge(&v.Findings)
		unverified |= v.Unverified
		res.read(&v)
	}
	for _, k := range unverified.Each() {
		w := findings.NewWarning(guard.StateUnverified, unverifiedField(k, dv),
			"%s objects were not observed, so the guards that read them did not run; plan against the cluster's state to check them", k)
		w.Kind = k.String()
		c.AddWarning(w)
	}
	if !c.Empty() {
		c.Stamp("datavolume " + dv.Namespace + "/" + dv.Name)
	}
	res.Warnings, res.Refusals = c.Warnings(), c.Refusals()
	res.Outcome = plan.Planned
	if c.Refused() {
		res.Outcome = plan.Refused
	}
	return res, res.Refusals.Err()
}

var emptySnapshot = state.NewSnapshot(nil)

// read takes the verdict's facts: the classes, and how CDI moves the data.
func (res *Result) read(v *cloneguard.Verdict) {
	if v.Class.Name != "" {
		res.StorageClass = v.Class
	}
	res.SourceClass = v.SourceClass
	res.Waits, res.Predicted = v.Waits, v.Predicted
	d := &v.Disk
	switch {
	case d.ClassMissing:
		res.Method, res.Why = NeverRenders, "class "+v.Class.Name+" is not among the cluster's StorageClasses"
	case d.Unrenderable != "":
		res.Method, res.Why = NeverRenders, d.Unrenderable
	case !v.Judged:
	case len(v.Causes) > 0:
		res.Method, res.Why = HostAssisted, v.Causes[0]
	case v.Strategy == cdiv1.CloneStrategySnapshot:
		res.Method = SnapshotClone
	case v.Strategy == cdiv1.CloneStrategyCsiClone:
		res.Method = CSIClone
	}
}

// request is the clone dv asks of CDI, or refusals of what the plan does
// not judge, with the kinds it could not read.
func request(dv *cdiv1.DataVolume, snap *state.Snapshot, c *findings.Collector, unverified *state.Kind) (cloneguard.Request, bool) {
	req := cloneguard.Request{Namespace: dv.Namespace, Words: words,
		Paths: cloneguard.Paths{Source: pathSourcePVC, Class: pathClass, Size: pathSize}}
	src, ok := source(dv, snap, c, unverified)
	st := dv.Spec.Storage
	switch {
	case st == nil && dv.Spec.PVC != nil:
		c.Refuse(guard.InvalidValue, field.NewPath("spec", "pvc"), "pvc",
			"the DataVolume uses the pvc API, whose PVC CDI takes as written; the plan judges what CDI renders for the storage API: write the request under spec.storage")
		return req, false
	case st == nil:
		c.Refuse(guard.InvalidValue, pathStorage, nil,
			"the DataVolume has no spec.storage, so CDI renders no PVC for it; set spec.storage.resources.requests.storage")
		return req, false
	case st.VolumeMode != nil || len(st.AccessModes) > 0:
		c.Refuse(guard.InvalidValue, pathStorage, "volumeMode/accessModes",
			"the DataVolume sets its own volume mode or access modes, which CDI takes over the StorageProfile's; the plan judges what CDI renders from the StorageProfile: leave both to it")
		return req, false
	}
	if dv.Spec.SourceRef != nil {
		req.Paths.Source = pathSourceRef
	}
	q, sized := st.Resources.Requests[corev1.ResourceStorage]
	switch {
	case !sized:
		c.Refuse(guard.InvalidQuantity, pathSize, nil,
			"the DataVolume states no size: CDI then sizes the clone from its source (its capacity, or the image a pod measures), which the plan does not predict; set %s", pathSize)
		return req, false
	case q.Sign() <= 0:
		c.Refuse(guard.InvalidQuantity, pathSize, q.String(),
			"a size of %s is not positive, and CDI's webhook rejects it (\"size can't be equal or less than zero\"); set a size such as 1Gi", q.String())
		return req, false
	}
	if !ok {
		return req, false
	}
	if v, set := dv.Annotations[naming.UsePopulatorAnnotation]; set {
		// CDI v1.64.0 pkg/controller/datavolume/controller-base.go:
		// shouldUseCDIPopulator reads it with strconv.ParseBool, and
		// fails the DataVolume's every reconcile on anything else.
		switch on, err := strconv.ParseBool(v); {
		case err != nil:
			c.Refuse(guard.InvalidValue, pathAnnotations.Key(naming.UsePopulatorAnnotation), v,
				"annotation %s is %q, which CDI cannot read as a boolean, so it fails every reconcile of the DataVolume; set \"true\" or \"false\", or remove it", naming.UsePopulatorAnnotation, v)
			return req, false
		case on:
			req.Populator = cloneguard.PopulatorOn
		default:
			req.Populator = cloneguard.PopulatorOff
		}
	}
	req.Source, req.Size, req.SizeOK = src, q, true
	req.Words.SizeText = q.String()
	req.Class = stateindex.DataVolumeClass(dv)
	return req, true
}

// unverifiedField is the DataVolume's field whose guards needed a kind:
// the source's DataVolume and PVC for spec.source (or its DataSource for
// spec.sourceRef), the rest for the class and the clone strategy.
func unverifiedField(k state.Kind, dv *cdiv1.DataVolume) *field.Path {
	switch {
	case k == state.DataSource || (k&(state.DataVolume|state.PersistentVolumeClaim) != 0 && dv.Spec.SourceRef != nil):
		return pathSourceRef
	case k&(state.DataVolume|state.PersistentVolumeClaim) != 0:
		return pathSourcePVC
	}
	return pathClass
}
