package cloneguard

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// resolveClasses resolves both sides and compares them. The disk's class
// is the one it names, else CDI's default (CDI v1.64.0
// pkg/controller/common/util.go: GetStorageClassByNameWithVirtFallback);
// a pool's disk that names none keeps the class its disks already cloned
// from the golden are bound on. The class the comparison used is the
// class written on the disk: reading one class and binding another is how
// a pool at an empty storageClass passed the comparison and still took
// the host-assisted copy.
func (j *judge) resolveClasses() {
	r := &j.req
	def := j.ix.DefaultClass()
	// Only a pool's disks freeze its class: any other disk's is CDI's.
	disksKnown := true
	var cloned []string
	if r.Pool != "" {
		disksKnown = j.ix.CoversNamespace(state.PersistentVolumeClaim, r.Namespace) && j.ix.CoversNamespace(state.DataVolume, r.Namespace)
		// The classes of the pool's disks already cloned from the golden,
		// read only where they can decide: an explicit class always wins.
		if r.Class == "" {
			cloned = j.ix.ClonedClasses(r.Namespace, r.Pool, r.Source.Name)
		}
	}
	w, werr := storage.Resolve(storage.Input{Named: r.Class, Bound: cloned, BoundKnown: disksKnown, Default: def.Name, DefaultKnown: def.Known})
	j.v.Class = w
	j.v.Provisional = w.From == storage.Default && !disksKnown
	if r.Class == "" && !disksKnown {
		// Unseen disks may freeze the class elsewhere, or conflict.
		j.v.Unverified |= j.missingNamespaceKinds()
	}
	workerOK := j.classProblem(werr, false, j.v.Provisional)

	g := &j.v.Source
	if g.Presence == golden.Absent && !r.Catalogued && !r.Expects {
		// A source that does not exist, and that nothing says will: there
		// is no class of it to compare until it comes.
		return
	}
	if g.Presence == golden.Absent && r.AlreadyCloned && g.NamedClass == "" {
		// A golden gone from under a pool that has cloned it, on no class
		// its entry names: the pool is not refused for it
		// (GoldenUnavailable says so), and it comes back on whatever the
		// default is then, so there is no class of it to compare until it
		// is back. One whose entry names its class comes back on that
		// class, and new workers clone from it there.
		return
	}
	if g.PVC != nil && g.NamedClass == "" && (g.PVC.Spec.StorageClassName == nil || *g.PVC.Spec.StorageClassName == "") {
		// The source exists on no class at all (a PVC bound to a volume
		// made by hand): CDI reads no class of it, only its volume's CSI
		// driver, which the host-assisted causes compare with the disk's
		// (CDI v1.64.0 pkg/controller/clone/common.go: GetCommonDriver).
		// There is no class to differ from, and no default to resolve.
		j.classOK = workerOK && !j.pvcOnlyUnseen()
		if !j.classOK {
			j.v.Unverified |= j.missingKinds()
		}
		return
	}
	gw, gerr := g.ResolveClass(def)
	// A clone made proves the class the golden's PVC is on, while that PVC
	// exists: once it is gone, CDI re-creates it from the golden's
	// DataVolume on whatever the default then is.
	proves := r.AlreadyCloned && gw.From == storage.Default && g.BoundKnown && disksKnown && g.PVC != nil
	if proves && cloned == nil {
		cloned = j.ix.ClonedClasses(r.Namespace, r.Pool, r.Source.Name)
	}
	if proves && len(cloned) == 1 {
		// Nothing of the golden names its class, but the pool's disks were
		// cloned from it, on its class: they prove it, and moving the
		// default must not turn this pool refused. (Disks on several
		// classes prove nothing; the default decides, as for any pool.)
		gw, gerr = storage.Resolution{Name: cloned[0], From: storage.Frozen}, nil
	}
	j.v.SourceClass = gw
	// The source's class is provisional when it rests on something unseen:
	// taken from the default, it rests on its PVC and the pool's disks (a
	// clone made proves the class) being absent; taken from a PVC seen
	// alone while DataVolumes were not observed, on the source having no
	// DataVolume that names another class.
	fromDefault := gw.From == storage.Default && (g.Presence == golden.Unobserved || !g.BoundKnown || !disksKnown)
	sourceProvisional := fromDefault || j.pvcOnlyUnseen()
	if sourceProvisional {
		j.v.Unverified |= j.missingKinds()
		if r.Pool != "" {
			j.v.Unverified |= j.missingNamespaceKinds()
		}
	}
	goldOK := j.classProblem(gerr, true, sourceProvisional)
	if !workerOK || !goldOK {
		return
	}
	if w.Name == gw.Name {
		j.classOK = true
		return
	}
	if j.v.Provisional || sourceProvisional {
		return // the mismatch rests on something unobserved: StateUnverified says so
	}
	j.v.Mismatch = true
}

// refuseMismatch refuses a disk on another class than its source's: one
// class per golden, the seed's rule. Its message says what CDI would do.
// CDI compares drivers, volume modes and sizes, never classes (CDI v1.64.0
// pkg/controller/clone/planner.go: computeStrategyForSourcePVC,
// validateAdvancedClonePVC), so every cause of a host-assisted copy holds
// across classes too: with one, CDI copies over the pod network, for
// CDI's reason. With none, one driver on both sides is a cross-class CSI
// clone, which the driver may refuse, and which on a WaitForFirstConsumer
// class of LINSTOR stays pending forever.
func (j *judge) refuseMismatch() {
	w, gw := j.v.Class, j.v.SourceClass
	var h hostAssisted
	if !j.v.Provisional && j.v.Disk.Renders() {
		h = j.copyCauses()
		j.note(&h)
		j.checkStrategyKnown(&h)
		j.warnClaimRef(&h)
	}
	disk := cdi.ClassDriver(j.snap, w.Name)
	gold := j.claim.driver
	if !j.claim.known {
		gold = cdi.ClassDriver(j.snap, gw.Name)
	}
	var consequence string
	switch {
	case len(h.causes) > 0:
		c := h.causes[0] // the cause CDI meets first, and reports
		consequence = fmt.Sprintf("CDI would copy the image over the pod network instead of cloning it at the storage layer (%s: %s)%s",
			c.reason, c.why, j.predictedNote(c.claim))
	case !disk.Known() || !gold.Known():
		consequence = "CDI would either copy the image over the pod network (if the two are on different CSI drivers) or attempt a cross-class CSI clone that the driver may refuse or leave pending (if they share one); the drivers were not all observed"
	case disk.Name != "" && disk.Name == gold.Name && h.unobserved != 0:
		consequence = fmt.Sprintf("both are on CSI driver %q, so CDI would attempt a cross-class CSI clone, which the driver may refuse and which on a WaitForFirstConsumer class of LINSTOR stays pending forever, unless what was not observed (%s) makes it copy the image over the pod network", disk.Name, h.unobserved)
	case disk.Name != "" && disk.Name == gold.Name:
		consequence = fmt.Sprintf("both are on CSI driver %q, so CDI would attempt a cross-class CSI clone, which the driver may refuse and which on a WaitForFirstConsumer class of LINSTOR stays pending forever", disk.Name)
	default:
		consequence = fmt.Sprintf("they are on different CSI drivers (%s and %s), so CDI would copy the image over the pod network instead of cloning it at the storage layer", orNoDriver(disk.Name), orNoDriver(gold.Name))
	}
	fix := ""
	if f := j.req.Words.MismatchFix; f != "" {
		fix = "; " + fmt.Sprintf(f, gw.Name, w.Name)
	}
	j.c.Refuse(guard.StorageClassMismatch, j.req.Paths.Class, w.Name,
		"the disk's class %s differs from %s's class %s: %s%s",
		describe(w), j.source(), describe(gw), consequence, fix)
}

func orNoDriver(d string) string {
	if d == "" {
		return "no CSI driver"
	}
	return fmt.Sprintf("%q", d)
}

// pvcOnlyUnseen: the source was seen by its PVC alone while DataVolumes
// were not observed, so a DataVolume naming another class may exist.
func (j *judge) pvcOnlyUnseen() bool {
	g := &j.v.Source
	s := j.req.Source
	return g.PVC != nil && g.DataVolume == nil && !j.ix.Covers(state.DataVolume, s.Namespace, s.Name)
}

// classProblem turns a resolution error into a refusal or a warning and
// reports whether the class was resolved.
func (j *judge) classProblem(err error, source, provisional bool) bool {
	conflict, isConflict := err.(*storage.ConflictError)
	switch {
	case err == nil:
		return true
	case isConflict:
		j.c.Refuse(guard.FrozenStorageClassConflict, j.req.Paths.Class, conflict.Classes,
			"the pool's disks already cloned are bound on more than one class (%v); set %s to the one the pool should keep and move the others' workers onto it", conflict.Classes, j.req.Words.ClassField)
	case errors.Is(err, storage.ErrDefaultUnknown):
		j.v.Unverified |= state.StorageClass
	case !provisional:
		// "No default" matters only once nothing is bound; while that is
		// unobserved, StateUnverified says so instead.
		side := j.req.Words.Owner
		if source {
			side = j.source()
		}
		j.c.Refuse(guard.DefaultStorageClassUnresolvable, j.req.Paths.Class, "",
			"%s names no class and the cluster has no default StorageClass; set %s explicitly, or mark a class with storageclass.kubernetes.io/is-default-class: \"true\"", side, j.req.Words.ClassField)
	}
	return false
}

// describe says where a class came from, and says nothing of a default when
// the class was explicit.
func describe(r storage.Resolution) string {
	switch r.From {
	case storage.Default:
		return fmt.Sprintf("%q (resolved from the cluster default)", r.Name)
	case storage.Frozen:
		return fmt.Sprintf("%q (frozen: the class its bound disks are on)", r.Name)
	}
	return fmt.Sprintf("%q", r.Name)
}

// checkNodeLocal warns when the class binds per node: the source binds
// where CDI's importer landed, the disk where its VM is scheduled, and
// nothing makes them the same node.
func (j *judge) checkNodeLocal(class string) {
	sc := j.ix.StorageClass(class)
	if sc == nil {
		return
	}
	wffc := sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == "WaitForFirstConsumer"
	if wffc || len(sc.AllowedTopologies) > 0 {
		j.c.Warn(guard.NodeLocalStorageClass, j.req.Paths.Class,
			"class %q binds per node (WaitForFirstConsumer or allowedTopologies); the %s binds where its importer ran and a clone may not reach another node: prefer a replicated class", class, j.noun())
	}
}
