package plan

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// resolveClasses resolves both sides and compares them. The class the
// comparison used is the class written on the disk: reading one class and
// binding another is how a pool at an empty storageClass passed the
// comparison and still took the host-assisted copy.
func (p *planner) resolveClasses(cl *clone) {
	ns := p.pool.Namespace
	def := stateindex.Of(p.snap).DefaultClass()
	disksKnown := stateindex.Of(p.snap).CoversNamespace(state.PersistentVolumeClaim, ns) && stateindex.Of(p.snap).CoversNamespace(state.DataVolume, ns)
	// The classes of the pool's disks already cloned from the golden, read
	// only where they can decide: an explicit class always wins.
	var cloned []string
	if p.pool.Spec.StorageClass == "" {
		cloned = stateindex.Of(p.snap).ClonedClasses(ns, cl.pool, cl.goldenName)
	}
	w, werr := storage.Resolve(storage.Input{Named: p.pool.Spec.StorageClass, Bound: cloned, BoundKnown: disksKnown, Default: def})
	cl.workerClass = w
	cl.workerProvisional = w.From == storage.Default && !disksKnown
	if p.pool.Spec.StorageClass == "" && !disksKnown {
		// Unseen disks may freeze the class elsewhere, or conflict.
		p.unverified |= p.missingNamespaceKinds(ns)
	}
	workerOK := p.classProblem(werr, "", cl.workerProvisional)

	g := &cl.golden
	if g.Presence == golden.Absent && cl.alreadyCloned && g.NamedClass == "" {
		// A golden gone from under a pool that has cloned it, on no class
		// its entry names: the pool is not refused for it
		// (GoldenUnavailable says so), and it comes back on whatever the
		// default is then, so there is no class of it to compare until it
		// is back. One whose entry names its class comes back on that
		// class, and new workers clone from it there.
		return
	}
	if g.PVC != nil && g.NamedClass == "" && (g.PVC.Spec.StorageClassName == nil || *g.PVC.Spec.StorageClassName == "") {
		// The golden exists on no class at all (a PVC bound to a volume
		// made by hand): CDI reads no class of the golden, only its
		// volume's CSI driver, which the host-assisted causes compare
		// with the disk's (controller/clone/common.go GetCommonDriver).
		// There is no class to differ from, and no default to resolve.
		cl.classOK = workerOK && !p.pvcOnlyUnseen(g)
		if !cl.classOK {
			p.unverified |= p.missingKinds(naming.GoldenNamespace, g.Name)
		}
		return
	}
	gw, gerr := g.ResolveClass(def)
	// A clone made proves the class the golden's PVC is on, while that PVC
	// exists: once it is gone, CDI re-creates it from the golden's
	// DataVolume on whatever the default then is.
	proves := cl.alreadyCloned && gw.From == storage.Default && g.BoundKnown && disksKnown && g.PVC != nil
	if proves && cloned == nil {
		cloned = stateindex.Of(p.snap).ClonedClasses(ns, cl.pool, cl.goldenName)
	}
	if proves && len(cloned) == 1 {
		// Nothing of the golden names its class, but the pool's disks were
		// cloned from it, on its class: they prove it, and moving the
		// default must not turn this pool refused. (Disks on several
		// classes prove nothing; the default decides, as for any pool.)
		gw, gerr = storage.Resolution{Name: cloned[0], From: storage.Frozen}, nil
	}
	cl.goldenClass = gw
	// The golden's class is provisional when it rests on something unseen:
	// taken from the default, it rests on the golden's PVC and the pool's
	// disks (a clone made proves the class) being absent; taken from a PVC
	// seen alone while DataVolumes were not observed, on the golden having
	// no DataVolume that names another class.
	fromDefault := gw.From == storage.Default && (g.Presence == golden.Unobserved || !g.BoundKnown || !disksKnown)
	cl.goldenProvisional = fromDefault || p.pvcOnlyUnseen(g)
	if cl.goldenProvisional {
		p.unverified |= p.missingKinds(naming.GoldenNamespace, g.Name) | p.missingNamespaceKinds(ns)
	}
	goldOK := p.classProblem(gerr, g.Name, cl.goldenProvisional)
	if !workerOK || !goldOK {
		return
	}
	if w.Name == gw.Name {
		cl.classOK = true
		return
	}
	if cl.workerProvisional || cl.goldenProvisional {
		return // the mismatch rests on something unobserved: StateUnverified says so
	}
	cl.mismatch = true
}

// refuseMismatch refuses a disk on another class than its golden's: one
// class per flavor, the seed's rule. Its message says what CDI would do.
// CDI compares drivers, volume modes and sizes, never classes
// (controller/clone/planner.go computeStrategyForSourcePVC,
// validateAdvancedClonePVC), so every cause of a host-assisted copy holds
// across classes too: with one, CDI copies over the pod network, for
// CDI's reason. With none, one driver on both sides is a cross-class CSI
// clone, which the driver may refuse, and which on a WaitForFirstConsumer
// class of LINSTOR stays pending forever.
func (p *planner) refuseMismatch(cl *clone) {
	w, gw := cl.workerClass, cl.goldenClass
	var h hostAssisted
	if !cl.workerProvisional && cl.disk.Renders() {
		h = p.copyCauses(cl)
		p.checkStrategyKnown(cl, &h)
		p.warnClaimRef(cl, &h)
	}
	disk := cdi.ClassDriver(p.snap, w.Name)
	gold := cl.claim.driver
	if !cl.claim.known {
		gold = cdi.ClassDriver(p.snap, gw.Name)
	}
	var consequence string
	switch {
	case len(h.causes) > 0:
		c := h.causes[0] // the cause CDI meets first, and reports
		consequence = fmt.Sprintf("CDI would copy the image over the pod network instead of cloning it at the storage layer (%s: %s)%s",
			c.reason, c.why, p.predictedNote(cl, c.claim))
	case !disk.Known() || !gold.Known():
		consequence = "CDI would either copy the image over the pod network (if the two are on different CSI drivers) or attempt a cross-class CSI clone that the driver may refuse or leave pending (if they share one); the drivers were not all observed"
	case disk.Name != "" && disk.Name == gold.Name && h.unobserved != 0:
		consequence = fmt.Sprintf("both are on CSI driver %q, so CDI would attempt a cross-class CSI clone, which the driver may refuse and which on a WaitForFirstConsumer class of LINSTOR stays pending forever, unless what was not observed (%s) makes it copy the image over the pod network", disk.Name, h.unobserved)
	case disk.Name != "" && disk.Name == gold.Name:
		consequence = fmt.Sprintf("both are on CSI driver %q, so CDI would attempt a cross-class CSI clone, which the driver may refuse and which on a WaitForFirstConsumer class of LINSTOR stays pending forever", disk.Name)
	default:
		consequence = fmt.Sprintf("they are on different CSI drivers (%s and %s), so CDI would copy the image over the pod network instead of cloning it at the storage layer", orNoDriver(disk.Name), orNoDriver(gold.Name))
	}
	p.c.Refuse(guard.StorageClassMismatch, pathStorageClass, w.Name,
		"the disk's class %s differs from golden %s's class %s: %s; set storageClass: %s on the pool, or use a catalog entry on %q",
		describe(w), cl.golden.Name, describe(gw), consequence, gw.Name, w.Name)
}

func orNoDriver(d string) string {
	if d == "" {
		return "no CSI driver"
	}
	return fmt.Sprintf("%q", d)
}

// pvcOnlyUnseen: the golden was seen by its PVC alone while DataVolumes
// were not observed, so a DataVolume naming another class may exist.
func (p *planner) pvcOnlyUnseen(g *golden.Golden) bool {
	return g.PVC != nil && g.DataVolume == nil && !stateindex.Of(p.snap).Covers(state.DataVolume, naming.GoldenNamespace, g.Name)
}

func (p *planner) missingNamespaceKinds(ns string) state.Kind {
	var k state.Kind
	if !stateindex.Of(p.snap).CoversNamespace(state.DataVolume, ns) {
		k |= state.DataVolume
	}
	if !stateindex.Of(p.snap).CoversNamespace(state.PersistentVolumeClaim, ns) {
		k |= state.PersistentVolumeClaim
	}
	return k
}

// classProblem turns a resolution error into a refusal or a warning and
// reports whether the class was resolved.
func (p *planner) classProblem(err error, golden string, provisional bool) bool {
	conflict, isConflict := err.(*storage.ConflictError)
	switch {
	case err == nil:
		return true
	case isConflict:
		p.c.Refuse(guard.FrozenStorageClassConflict, pathStorageClass, conflict.Classes,
			"the pool's disks already cloned are bound on more than one class (%v); set storageClass to the one the pool should keep and move the others' workers onto it", conflict.Classes)
	case errors.Is(err, storage.ErrDefaultUnknown):
		p.unverified |= state.StorageClass
	case !provisional:
		// "No default" matters only once nothing is bound; while that is
		// unobserved, StateUnverified says so instead.
		side := "the pool's disk"
		if golden != "" {
			side = "golden " + golden
		}
		p.c.Refuse(guard.DefaultStorageClassUnresolvable, pathStorageClass, "",
			"%s names no class and the cluster has no default StorageClass; set storageClass explicitly, or mark a class with storageclass.kubernetes.io/is-default-class: \"true\"", side)
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

// checkNodeLocal warns when the class binds per node: the golden binds where
// CDI's importer landed, the disk where its VM is scheduled, and nothing
// makes them the same node.
func (p *planner) checkNodeLocal(class string) {
	sc := stateindex.Of(p.snap).StorageClass(class)
	if sc == nil {
		return
	}
	wffc := sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == "WaitForFirstConsumer"
	if wffc || len(sc.AllowedTopologies) > 0 {
		p.c.Warn(guard.NodeLocalStorageClass, pathStorageClass,
			"class %q binds per node (WaitForFirstConsumer or allowedTopologies); the golden binds where its importer ran and a clone may not reach another node: prefer a replicated class", class)
	}
}
