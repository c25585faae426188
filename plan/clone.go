package plan

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// flavor is the builtin flavor after defaulting from talos.*, with the
// values path each part came from.
func (p *planner) flavor(b *Builtin) (catalog.Flavor, *field.Path, *field.Path) {
	t := &p.pool.Spec.Talos
	f := catalog.Flavor{SchematicID: b.SchematicID, Version: b.Version}
	idPath, verPath := pathBuiltinSchematicID, pathBuiltinVersion
	if f.SchematicID == "" {
		f.SchematicID, idPath = t.SchematicID, pathTalosSchematicID
	}
	if f.Version == "" {
		f.Version, verPath = t.Version, pathTalosVersion
	}
	return f, idPath, verPath
}

// clone is what the clone path learns on its way; it keeps planClone's
// steps small.
type clone struct {
	golden string
	pool   string // the pool's CAPI name
	// alreadyCloned: disks of the pool were cloned from the golden.
	alreadyCloned bool
	entry         *catalog.Entry
	live          catalog.Golden
	cloned        []string // classes of the pool's disks already cloned from the golden
	size          resource.Quantity
	sizeOK        bool
	worker        storage.Resolution
	workerP       bool // worker class rests on something unobserved
	gold          storage.Resolution
	goldP         bool
	classOK       bool // both sides resolved and equal
}

func (p *planner) planClone(b *Builtin) {
	f, idPath, verPath := p.flavor(b)
	var cl clone
	entry, inCatalog := p.cat.Lookup(f)
	name := ""
	if inCatalog && entry.Golden != "" {
		name = entry.Golden // validated when the catalog was compiled
	} else {
		var err error
		name, err = naming.GoldenName(f.SchematicID, f.Version, idPath, verPath)
		p.c.Check(err)
	}
	if q, err := catalog.ParseSize(p.diskSize(), pathDiskSize); p.c.Check(err) {
		cl.size, cl.sizeOK = q, true
	}
	p.res.InstallerImage = naming.InstallerImage(p.pool.Spec.Talos.InstallerRepository, f.SchematicID, f.Version)
	if name == "" {
		return
	}
	cl.golden = name
	cl.pool = naming.PoolCAPIName(p.pool.Name)
	cl.cloned = p.snap.ClonedClasses(p.pool.Namespace, cl.pool, name)
	cl.alreadyCloned = len(p.snap.ClonedDisks(p.pool.Namespace, cl.pool, name)) > 0
	alreadyCloned := cl.alreadyCloned

	if inCatalog && p.cat.Enabled {
		cl.entry = entry
		p.c.Check(entry.Err())
	} else if p.cat.Unobserved != 0 && !alreadyCloned {
		// Read back from goldens that were not all observed: the flavor
		// may exist, so its absence refuses nothing.
		p.unverified |= p.cat.Unobserved
	} else if alreadyCloned {
		p.c.Warn(guard.GoldenUnavailable, pathBuiltin,
			"golden %s is %s; the pool's running workers are fine, but new workers will not boot until the golden is back: add %s to the catalog", name, p.notInCatalog(), f)
	} else {
		p.c.Refuse(guard.GoldenNotInCatalog, pathBuiltin, f.String(),
			"golden %s is %s, so there is nothing to clone; add {schematicID: %s, version: %s} to the catalog's images (and enable it), or pick a flavor the catalog has", name, p.notInCatalog(), f.SchematicID, f.Version)
	}
	cl.live = catalog.Live(name, cl.entry, p.snap)
	p.goldenStatus(&cl, alreadyCloned)
	p.resolveClasses(&cl)
	p.checkSize(&cl)
	if cl.classOK && !cl.workerP {
		// A class that rests on unseen disks being absent proves no cause.
		p.checkHostAssisted(&cl)
		p.checkNodeLocal(cl.worker.Name)
	}
	p.writeClone(&cl)
}

func (p *planner) notInCatalog() string {
	if !p.cat.Enabled {
		return "not served: the catalog is disabled"
	}
	return "not in the catalog"
}

// goldenStatus refuses or warns on the golden's presence and import.
func (p *planner) goldenStatus(cl *clone, alreadyCloned bool) {
	g := &cl.live
	switch g.Presence {
	case catalog.Unobserved:
		p.unverified |= p.missingKinds(naming.GoldenNamespace, g.Name)
		return
	case catalog.Absent:
		if alreadyCloned && cl.entry == nil {
			return // GoldenUnavailable already says it is not served
		}
		if alreadyCloned {
			p.c.Warn(guard.GoldenUnavailable, pathBuiltin,
				"golden %s is missing; the pool's running workers are fine, but new workers will not boot until it is re-created from its catalog entry", g.Name)
		} else if cl.entry != nil {
			p.c.Warn(guard.GoldenPending, pathBuiltin,
				"golden %s is not created yet; CDI holds the worker disks until it is imported", g.Name)
		}
		return
	}
	switch g.Import {
	case catalog.ImportUnknown:
		p.unverified |= state.DataVolume
	case catalog.Importing:
		p.c.Warn(guard.GoldenPending, pathBuiltin,
			"golden %s is still importing (phase %q); CDI holds the worker disks until it succeeds", g.Name, g.DataVolume.Status.Phase)
	case catalog.Stalled:
		p.c.Warn(guard.GoldenImportStalled, pathBuiltin,
			"golden %s is importing but failing (%s); check its importer pod in %s", g.Name, importDetail(g.DataVolume), naming.GoldenNamespace)
	case catalog.Failed:
		if alreadyCloned && cl.entry == nil {
			return // GoldenUnavailable already says it is not served
		}
		if alreadyCloned {
			p.c.Warn(guard.GoldenUnavailable, pathBuiltin,
				"golden %s failed to import (%s); the pool's running workers are fine, but new workers will not boot until it is re-imported", g.Name, importDetail(g.DataVolume))
		} else {
			p.c.Refuse(guard.GoldenImportFailed, pathBuiltin, g.Name,
				"golden %s failed to import (%s); fix the image source and re-create the golden, or pick another flavor", g.Name, importDetail(g.DataVolume))
		}
	}
}

func importDetail(dv *cdiv1.DataVolume) string {
	s := fmt.Sprintf("phase %q, %d importer restarts", dv.Status.Phase, dv.Status.RestartCount)
	for _, c := range dv.Status.Conditions {
		if c.Type == cdiv1.DataVolumeRunning && c.Reason != "" {
			s += ", Running " + string(c.Status) + " " + c.Reason
		}
	}
	return s
}

// missingKinds lists which of DataVolume and PVC were not observed for an
// object.
func (p *planner) missingKinds(ns, name string) state.Kind {
	var k state.Kind
	if !p.snap.Covers(state.DataVolume, ns, name) {
		k |= state.DataVolume
	}
	if !p.snap.Covers(state.PersistentVolumeClaim, ns, name) {
		k |= state.PersistentVolumeClaim
	}
	return k
}

// resolveClasses resolves both sides and compares them. The class the
// comparison used is the class written on the disk.
func (p *planner) resolveClasses(cl *clone) {
	ns := p.pool.Namespace
	def := p.snap.DefaultClass()
	disksKnown := p.snap.CoversNamespace(state.PersistentVolumeClaim, ns) && p.snap.CoversNamespace(state.DataVolume, ns)
	w, werr := storage.Resolve(storage.Input{Named: p.pool.Spec.StorageClass, Bound: cl.cloned, BoundKnown: disksKnown, Default: def})
	cl.worker = w
	cl.workerP = w.From == storage.Default && !disksKnown
	if p.pool.Spec.StorageClass == "" && !disksKnown {
		// Unseen disks may freeze the class elsewhere, or conflict.
		p.unverified |= p.missingNamespaceKinds(ns)
	}
	workerOK := p.classProblem(werr, "the pool's disk", cl.workerP)

	g := &cl.live
	gw, gerr := g.ResolveClass(def)
	cl.gold = gw
	if cl.alreadyCloned && gw.From == storage.Default && len(cl.cloned) == 1 && g.BoundKnown && disksKnown {
		// Nothing of the golden names its class, but the pool's disks were
		// cloned from it, on its class: they prove it, and moving the
		// default must not turn this pool refused. (Disks on several
		// classes prove nothing; the default decides, as for any pool.)
		gw, gerr = storage.Resolution{Name: cl.cloned[0], From: storage.Frozen}, nil
		cl.gold = gw
	}
	// The golden's class is provisional when it rests on something unseen:
	// taken from the default, it rests on the golden's PVC and the pool's
	// disks (a clone made proves the class) being absent; taken from a PVC
	// seen alone while DataVolumes were not observed, on the golden having
	// no DataVolume that names another class.
	pvcOnlyUnseen := g.PVC != nil && g.DataVolume == nil && !p.snap.Covers(state.DataVolume, naming.GoldenNamespace, g.Name)
	fromDefault := gw.From == storage.Default && (g.Presence == catalog.Unobserved || !g.BoundKnown || !disksKnown)
	cl.goldP = fromDefault || pvcOnlyUnseen
	if cl.goldP {
		p.unverified |= p.missingKinds(naming.GoldenNamespace, g.Name) | p.missingNamespaceKinds(ns)
	}
	goldOK := p.classProblem(gerr, "golden "+g.Name, cl.goldP)
	if !workerOK || !goldOK {
		return
	}
	if w.Name == gw.Name {
		cl.classOK = true
		return
	}
	if cl.workerP || cl.goldP {
		return // the mismatch rests on something unobserved: StateUnverified says so
	}
	p.c.Refuse(guard.StorageClassMismatch, pathStorageClass, w.Name,
		"the disk's class %s differs from golden %s's class %s, so CDI would not clone at the storage layer and would copy the image over the pod network; set storageClass: %s on the pool, or use a catalog entry on %q",
		describe(w), g.Name, describe(gw), gw.Name, w.Name)
}

func (p *planner) missingNamespaceKinds(ns string) state.Kind {
	var k state.Kind
	if !p.snap.CoversNamespace(state.DataVolume, ns) {
		k |= state.DataVolume
	}
	if !p.snap.CoversNamespace(state.PersistentVolumeClaim, ns) {
		k |= state.PersistentVolumeClaim
	}
	return k
}

// classProblem turns a resolution error into a refusal or a warning and
// reports whether the class was resolved.
func (p *planner) classProblem(err error, side string, provisional bool) bool {
	switch e := err.(type) {
	case nil:
		return true
	case *storage.ConflictError:
		p.c.Refuse(guard.FrozenStorageClassConflict, pathStorageClass, e.Classes,
			"the pool's disks already cloned are bound on more than one class (%v); set storageClass to the one the pool should keep and move the others' workers onto it", e.Classes)
	default:
		if err == storage.ErrDefaultUnknown {
			p.unverified |= state.StorageClass
		} else if provisional {
			// "No default" only matters once nothing is bound; that is
			// unobserved, and StateUnverified already says so.
		} else {
			p.c.Refuse(guard.DefaultStorageClassUnresolvable, pathStorageClass, "",
				"%s names no class and the cluster has no default StorageClass; set storageClass explicitly, or mark a class with storageclass.kubernetes.io/is-default-class: \"true\"", side)
		}
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

// checkSize refuses a disk smaller than its golden: a clone target cannot
// be smaller than its source.
func (p *planner) checkSize(cl *clone) {
	if !cl.live.BoundKnown {
		p.unverified |= state.PersistentVolumeClaim // the bound capacity may be larger
	}
	gs := cl.live.Size()
	if !cl.sizeOK || gs.IsZero() || cl.size.Cmp(gs) >= 0 {
		return
	}
	p.c.Refuse(guard.DiskSmallerThanGolden, pathDiskSize, p.diskSize(),
		"diskSize %s is smaller than golden %s (%s); a clone cannot be smaller than its source: set diskSize to %s or more",
		p.diskSize(), cl.live.Name, gs.String(), gs.String())
}

// checkHostAssisted refuses every proven cause for which CDI would pick the
// host-assisted copy over the pod network instead of a storage-layer clone.
// What is unknown refuses nothing.
func (p *planner) checkHostAssisted(cl *clone) {
	class := cl.worker.Name
	copyCause := func(format string, args ...any) {
		p.c.Refuse(guard.HostAssistedClone, pathStorageClass, class,
			"CDI would copy golden %s over the pod network instead of cloning it at the storage layer: "+format, append([]any{cl.live.Name}, args...)...)
	}
	strategy, from := p.cloneStrategy(class)
	if strategy == cdiv1.CloneStrategyHostAssisted {
		copyCause("%s sets cloneStrategy copy; set it to csi-clone or snapshot", from)
	}
	sc := p.snap.StorageClass(class)
	switch {
	case !p.snap.Observed(state.StorageClass):
		p.unverified |= state.StorageClass
		if !p.snap.Observed(state.CSIDriver) {
			p.unverified |= state.CSIDriver
		}
	case sc == nil:
	case !p.snap.Observed(state.CSIDriver):
		p.unverified |= state.CSIDriver
	case p.snap.CSIDriver(sc.Provisioner) == nil:
		copyCause("class %q's provisioner %q has no CSIDriver, so it cannot clone volumes; use a class of a CSI driver", class, sc.Provisioner)
	}
	if sc != nil && cl.sizeOK && cl.live.BoundKnown {
		// With the golden's PVC unseen its capacity may be the larger
		// size; checkSize already says PVCs were not observed.
		gs := cl.live.Size()
		if !gs.IsZero() && cl.size.Cmp(gs) > 0 && (sc.AllowVolumeExpansion == nil || !*sc.AllowVolumeExpansion) {
			copyCause("the disk (%s) is larger than the golden (%s) and class %q does not allow volume expansion; set allowVolumeExpansion: true on it, or set diskSize to %s",
				p.diskSize(), gs.String(), class, gs.String())
		}
	}
	p.checkVolumeMode(cl, copyCause)
}

// cloneStrategy is CDI's order: the CDI resource's override, else the
// class's StorageProfile (spec, else status). It returns "" when unknown.
func (p *planner) cloneStrategy(class string) (cdiv1.CDICloneStrategy, string) {
	if !p.snap.Observed(state.CDI) {
		// The override, if any, would overrule the profile: a profile's
		// copy proves nothing while the override is unknown.
		p.unverified |= state.CDI
		if !p.snap.Observed(state.StorageProfile) {
			p.unverified |= state.StorageProfile
		}
		return "", ""
	} else if c := p.snap.CDI(); c != nil && c.Spec.CloneStrategyOverride != nil {
		return *c.Spec.CloneStrategyOverride, "the CDI resource " + c.Name + "'s cloneStrategyOverride"
	}
	if !p.snap.Observed(state.StorageProfile) {
		p.unverified |= state.StorageProfile
		return "", ""
	}
	sp := p.snap.StorageProfile(class)
	if sp == nil {
		return "", ""
	}
	from := "StorageProfile " + sp.Name
	if s := sp.Spec.CloneStrategy; s != nil {
		return *s, from + " (spec)"
	}
	if s := sp.Status.CloneStrategy; s != nil {
		return *s, from + " (status)"
	}
	return "", ""
}

// checkVolumeMode compares the mode CDI will pick for the disk (the
// StorageProfile's first claim property set) with the golden PVC's.
func (p *planner) checkVolumeMode(cl *clone, copyCause func(string, ...any)) {
	g := cl.live.PVC // unseen, checkSize already says PVCs were not observed
	if !p.snap.Observed(state.StorageProfile) {
		p.unverified |= state.StorageProfile // the mode CDI will pick is the profile's
		return
	}
	if g == nil {
		return
	}
	sp := p.snap.StorageProfile(cl.worker.Name)
	if sp == nil {
		return
	}
	sets := sp.Status.ClaimPropertySets
	if len(sets) == 0 {
		sets = sp.Spec.ClaimPropertySets
	}
	disk := corev1.PersistentVolumeFilesystem
	if len(sets) > 0 && sets[0].VolumeMode != nil {
		disk = *sets[0].VolumeMode
	}
	golden := corev1.PersistentVolumeFilesystem
	if g.Spec.VolumeMode != nil {
		golden = *g.Spec.VolumeMode
	}
	if disk != golden {
		copyCause("the disk would be %s (StorageProfile %s) while the golden's PVC is %s; align the StorageProfile's claimPropertySets with the golden's volume mode", disk, sp.Name, golden)
	}
}

// checkNodeLocal warns when the class binds per node: the golden binds where
// CDI's importer landed, the disk where its VM is scheduled, and nothing
// makes them the same node.
func (p *planner) checkNodeLocal(class string) {
	sc := p.snap.StorageClass(class)
	if sc == nil {
		return
	}
	wffc := sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == "WaitForFirstConsumer"
	if wffc || len(sc.AllowedTopologies) > 0 {
		p.c.Warn(guard.NodeLocalStorageClass, pathStorageClass,
			"class %q binds per node (WaitForFirstConsumer or allowedTopologies); the golden binds where its importer ran and a clone may not reach another node: prefer a replicated class", class)
	}
}

func (p *planner) writeClone(cl *clone) {
	st := &cdiv1.StorageSpec{}
	if cl.sizeOK {
		st.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: cl.size}
	}
	p.res.StorageClass = cl.worker
	if cl.worker.Name == "" {
		// Offline with an empty class: left to whatever the default is when
		// the disk is applied, which StateUnverified says.
		p.res.StorageClass = storage.Resolution{From: storage.Cluster}
	} else {
		class := cl.worker.Name
		st.StorageClassName = &class
	}
	p.res.Source = Clone
	p.res.Golden = cl.golden
	p.res.DiskSize = p.diskSize()
	p.res.Disk = Disk{
		ObjectMeta: metav1.ObjectMeta{
			Name: DiskName,
			Annotations: map[string]string{
				naming.GoldenAnnotation: cl.golden,
				naming.PoolAnnotation:   cl.pool,
			},
		},
		Spec: cdiv1.DataVolumeSpec{
			Source:  &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: cl.golden}},
			Storage: st,
		},
	}
}
