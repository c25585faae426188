// Package cloneguard is the one implementation of the clone guards: what
// CDI v1.64.0 does with a DataVolume of the storage API whose source is a
// PVC, judged against a snapshot of the cluster. The worker-disk planner
// (package plan), the generic clone planner (package plan/clone) and the
// VM-disk planner (package plan/vmdisk) all judge their clones here; each
// says where its findings go (Paths) and how its messages name things
// (Words), and a worker pool adds what only a pool has (the classes its
// disks already froze, the clones it already made).
//
// Findings come back, in CDI's order, for the caller to merge beside its
// own; the kinds a guard needed and could not read come back in
// Verdict.Unverified, for the caller's StateUnverified warnings.
package cloneguard

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// Paths are the fields the findings are at: the source the disk clones,
// its class and its size.
type Paths struct {
	Source, Class, Size *field.Path
}

// Words are how a caller's messages name its fields and its disks.
type Words struct {
	// Disks is what CDI holds while the source is not ready ("the worker
	// disks"); Disk what never exists when CDI cannot render it ("the
	// worker disk"); Owner what names no class ("the pool's disk").
	Disks, Disk, Owner string
	// ClassField and SizeField name the fields to edit ("storageClass",
	// "diskSize"); SizeText is the size as written, SizeExample a size to
	// suggest.
	ClassField, SizeField, SizeText, SizeExample string
	// OtherSource is the other way out of a source that failed to import
	// (", or pick another flavor"), "" for none.
	OtherSource string
	// MismatchFix is the way out of a class mismatch, a format of the
	// source's class (%[1]s) and the disk's (%[2]q); "" for none.
	MismatchFix string
}

// Request is one clone to judge.
type Request struct {
	// Namespace is the disk's namespace.
	Namespace string
	// Class is the class the disk names, "" for CDI's default.
	Class string
	// Size is the disk's requested size; SizeOK is false when it did not
	// parse (its refusal is the caller's), and then the size plays no part.
	Size   resource.Quantity
	SizeOK bool
	// Source is the PVC the disk clones.
	Source stateindex.Key
	// Expected is what the source is taken to be before it exists (its
	// catalog entry), when Expects; else nothing says it will. (A value,
	// not a pointer: a request is judged on every plan, and allocates
	// nothing.)
	Expected golden.Expected
	Expects  bool
	// Pool is a worker pool's CAPI name, "" for any other disk. A pool's
	// disk that names no class keeps the class its disks already cloned
	// from the source are bound on (frozen), and those disks prove the
	// source's class.
	Pool string
	// AlreadyCloned: the pool's disks were cloned from the source, so its
	// running workers do not need it: a source gone or failed warns
	// GoldenUnavailable instead of refusing.
	AlreadyCloned bool
	// Catalogued: the source is a golden a catalog decides, and Managed
	// says whether it serves it: served, its absence is pending (the
	// catalog's release creates it); not served, the caller refuses it.
	// Any other source that does not exist may still come, and CDI waits.
	Catalogued, Managed bool

	// Populator is what the DataVolume's cdi.kubevirt.io/storage.usePopulator
	// annotation says: nothing (CDI decides by the class's CSIDriver), on,
	// or off (CDI copies host-assisted). The charts' disks set none.
	Populator Populator

	Paths Paths
	Words Words
}

// Populator is a DataVolume's choice of CDI's clone populator.
type Populator int

const (
	// PopulatorByClass: CDI uses its populator when the class's
	// provisioner has a CSIDriver.
	PopulatorByClass Populator = iota
	// PopulatorOn: the annotation is "true".
	PopulatorOn
	// PopulatorOff: the annotation is "false".
	PopulatorOff
)

// Verdict is what the guards learned of the clone.
type Verdict struct {
	// Class is the class the disk binds on (Name "" when it could not be
	// resolved); Provisional: it rests on something unobserved.
	Class       storage.Resolution
	Provisional bool
	// SourceClass is the class the source lives on, when resolved.
	SourceClass storage.Resolution
	// Mismatch: both classes resolved from what was observed, and differ.
	Mismatch bool
	// Disk is what CDI renders for the disk on Class.
	Disk cdi.Rendering
	// Source is the source as the cluster has it.
	Source golden.Golden
	// Waits: CDI holds the clone until the source is ready (it does not
	// exist yet, is importing, is not bound, or its volume names another
	// claim).
	Waits bool
	// Predicted: the source's PVC is not bound yet, and what rests on it
	// is what CDI will render for it.
	Predicted bool
	// Judged: CDI's path and strategy were read from the state; then
	// Strategy is CDI's strategy and Causes the reasons CDI copies
	// host-assisted, in CDI's order (none: it clones at the storage layer).
	Judged   bool
	Strategy cdiv1.CDICloneStrategy
	Causes   []string
	// Unverified are the kinds a guard needed and could not read.
	Unverified state.Kind
	// Findings are the refusals and warnings, in CDI's order, for the
	// caller to merge into its own (findings.Collector Merge).
	Findings findings.Collector
}

// claim is the source's PVC as CDI's clone reads it: the PVC that exists,
// or, before CDI created it (or while PVCs were not observed), the one CDI
// will render from the source's DataVolume: its request rendered on its
// class, in its StorageProfile's volume mode, as for a disk
// (CDI v1.64.0 pkg/controller/datavolume/util.go: renderPvcSpec). While PVCs were not
// observed its driver is unknown: the PVC may exist, bound to a volume CDI
// reads the driver of.
//
// A source not bound yet is predicted bound at its request: a provisioner
// binds a claim to a volume of the size it asks for, so its capacity is its
// request, and CDI's clone then compares that capacity with the disk's
// (CDI v1.64.0 pkg/controller/clone/planner.go: validateAdvancedClonePVC). A disk need not
// wait for the import to learn that its clone will copy.
type claim struct {
	// known: the fields below are what CDI will see.
	known    bool
	request  resource.Quantity
	mode     corev1.PersistentVolumeMode
	capacity resource.Quantity
	// capacityKnown: the PVC exists, is bound and states its capacity, or
	// is predicted bound at its request.
	capacityKnown bool
	// predicted: the source's PVC is not bound yet (or does not exist):
	// its capacity, and for one CDI has not created yet all of it, is what
	// CDI will make of it.
	predicted bool
	// class is the class the claim names, for its StorageProfile's
	// snapshot class; classNil: it names none at all (nil, not ""), and
	// CDI then reads the Kubernetes default class's profile.
	class    string
	classNil bool
	driver   cdi.Driver
}

// judge is one clone being judged.
type judge struct {
	req  Request
	snap *state.Snapshot
	ix   *stateindex.Index
	c    findings.Collector
	v    Verdict
	// classOK: both sides resolved and equal.
	classOK bool
	claim   claim
}

// Judge runs the clone guards on req against snap. A nil snapshot knows
// nothing of the cluster.
func Judge(req *Request, snap *state.Snapshot) Verdict {
	if snap == nil {
		snap = emptySnapshot
	}
	j := judge{req: *req, snap: snap, ix: stateindex.Of(snap)}
	j.run()
	j.v.Findings = j.c
	return j.v
}

var emptySnapshot = state.NewSnapshot(nil)

func (j *judge) run() {
	r := &j.req
	var e *golden.Expected
	if r.Expects {
		e = &r.Expected
	}
	j.v.Source = golden.ObserveIn(r.Source.Namespace, r.Source.Name, e, j.snap)
	j.sourceStatus()
	j.resolveClasses()
	if j.v.Class.Name != "" {
		j.v.Disk = j.render(j.v.Class.Name)
	}
	if j.v.SourceClass.Name != "" || j.v.Source.PVC != nil {
		j.readClaim()
		j.checkBound()
	}
	if j.v.Mismatch {
		j.refuseMismatch()
	}
	if !j.v.Provisional && j.v.Disk.Renders() {
		// CDI fails a clone for its size before it looks at classes or
		// drivers (CDI v1.64.0 pkg/controller/datavolume/pvc-clone-controller.go:
		// validateClone; pkg/controller/clone/planner.go: validateSourcePVC).
		// A class that rests on unseen disks being absent proves no
		// rendering, so no size.
		j.checkSize()
	}
	if j.classOK && !j.v.Provisional && j.v.Disk.Renders() {
		// A class that rests on unseen disks being absent proves no cause.
		j.checkHostAssisted()
		j.checkNodeLocal(j.v.Class.Name)
	}
	j.v.Predicted = j.claim.predicted
}

// source names the source in a message: "golden <name>" in cozy-public,
// "source <namespace>/<name>" elsewhere.
func (j *judge) source() string {
	s := j.req.Source
	if s.Namespace == naming.GoldenNamespace {
		return "golden " + s.Name
	}
	return "source " + s.Namespace + "/" + s.Name
}

// noun is what the source is: a golden, or another disk.
func (j *judge) noun() string {
	if j.req.Source.Namespace == naming.GoldenNamespace {
		return "golden"
	}
	return "source"
}
