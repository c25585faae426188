package vmdisk

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// interimCloneGuards stands in for the clone planner: it judges what the
// library's shared pieces already decide, and says that the rest did not
// run. It judges the disk's class (the CDI default for none, the class
// existing, CDI rendering the PVC: internal/cdi Render), the source's
// presence and import (internal/golden Observe, for a source in
// cozy-public), and the class the source lives on against the disk's
// (StorageClassMismatch, its consequence from the CSI drivers of both
// sides). CDI's strategy and its host-assisted causes, and the size
// validation, are the clone planner's (HostAssistedClone,
// DiskSmallerThanGolden): a StateUnverified warning says they did not run.
func interimCloneGuards(req cloneRequest) cloneVerdict {
	g := interim{req: req, snap: req.snap}
	g.run()
	for _, k := range g.unverified.Each() {
		w := guard.NewWarning(guard.StateUnverified, unverifiedField(k),
			"%s objects were not observed, so the guards that read them did not run; plan against the cluster's state to check them", k)
		w.Kind = k.String()
		g.c.AddWarning(w)
	}
	g.c.AddWarning(notJudged)
	return cloneVerdict{class: g.class, sourceClass: g.sourceClass, refusals: g.c.Refusals(), warnings: g.c.Warnings()}
}

// notJudged says which guards the interim does not run.
var notJudged = guard.Warning{Reason: guard.StateUnverified, Field: dvSource.String(),
	Detail: "CDI's clone strategy, its host-assisted causes and its size validation (HostAssistedClone, DiskSmallerThanGolden) were not judged: they are the clone planner's, which this build does not have"}

func unverifiedField(k state.Kind) *field.Path {
	if k&(state.DataVolume|state.PersistentVolumeClaim) != 0 {
		return dvSource
	}
	return dvClass
}

type interim struct {
	req                cloneRequest
	snap               *state.Snapshot
	c                  findings.Collector
	unverified         state.Kind
	class, sourceClass storage.Resolution
	source             stateindex.Key
	// claim is the source's PVC, when it exists.
	claim *corev1.PersistentVolumeClaim
}

func (g *interim) run() {
	dv := g.req.dv
	src := dv.Spec.Source.PVC
	g.source = stateindex.Key{Namespace: src.Namespace, Name: src.Name}
	g.diskClass(stateindex.DataVolumeClass(dv))
	if g.class.Name != "" {
		g.render(dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage])
	}
	g.observeSource()
	if g.class.Name != "" && g.sourceClass.Name != "" && g.class.Name != g.sourceClass.Name {
		g.refuseMismatch()
	}
}

// diskClass resolves the disk's class as CDI does for a DataVolume: the
// one it names, else CDI's default.
func (g *interim) diskClass(named string) {
	if named != "" {
		g.class = storage.Resolution{Name: named, From: storage.Explicit}
		return
	}
	switch def := stateindex.Of(g.snap).DefaultClass(); {
	case !def.Known:
		g.unverified |= state.StorageClass
		g.class = storage.Resolution{From: storage.Cluster}
	case def.Name == "":
		g.c.Refuse(guard.DefaultStorageClassUnresolvable, dvClass, "",
			"the disk names no class and the cluster has no default StorageClass that CDI reads (%s or %s \"true\"), so CDI never renders its PVC",
			storage.VirtDefaultAnnotation, storage.DefaultAnnotation)
	default:
		g.class = storage.Resolution{Name: def.Name, From: storage.Default}
	}
}

// render refuses a disk CDI never renders a PVC for.
func (g *interim) render(size resource.Quantity) {
	r := cdi.Render(g.snap, g.class.Name, size)
	g.unverified |= r.Unobserved
	switch {
	case r.UnrenderableSize:
		g.c.Refuse(guard.DiskUnrenderable, dvSize, size.String(), "%s, so the disk never exists", r.Unrenderable)
	case r.ClassMissing:
		g.c.Refuse(guard.StorageClassNotFound, dvClass, g.class.Name,
			"class %q is not among the cluster's StorageClasses, so CDI never renders the disk's PVC (or, should an Available volume of that class exist, renders it from that volume and copies the source into it over the pod network)", g.class.Name)
	case r.Unrenderable != "":
		g.c.Refuse(guard.DiskUnrenderable, dvClass, g.class.Name,
			"CDI cannot render the disk's PVC on class %q: %s; %s", g.class.Name, r.Unrenderable, r.Fix)
	}
}

// observeSource reads the source's presence, import and class.
func (g *interim) observeSource() {
	s := g.source
	if s.Namespace != naming.GoldenNamespace {
		g.observeDisk()
		return
	}
	var expected *golden.Expected
	if e := g.req.expected; e != nil {
		expected = &golden.Expected{Class: stateindex.DataVolumeClass(e), Request: e.Spec.Storage.Resources.Requests[corev1.ResourceStorage]}
		if e.Spec.Source != nil && e.Spec.Source.HTTP != nil {
			expected.URL = e.Spec.Source.HTTP.URL
		}
	}
	gd := golden.Observe(s.Name, expected, g.snap)
	g.claim = gd.PVC
	switch gd.Presence {
	case golden.Unobserved:
		g.unverified |= g.missingKinds()
		return
	case golden.Absent:
		if expected == nil {
			g.c.Refuse(guard.GoldenNotInCatalog, dvSource, s.Name,
				"golden %s/%s does not exist, and no image catalog given to the plan has an entry that makes it, so the disk's clone waits for ever", s.Namespace, s.Name)
			return
		}
		g.c.Warn(guard.GoldenPending, dvSource, "golden %s/%s is not created yet; CDI holds the disk until it is imported", s.Namespace, s.Name)
	default:
		switch gd.Import {
		case golden.ImportUnknown:
			g.unverified |= state.DataVolume
		case golden.Importing:
			g.c.Warn(guard.GoldenPending, dvSource, "golden %s/%s is still importing (phase %q); CDI holds the disk until it succeeds", s.Namespace, s.Name, gd.DataVolume.Status.Phase)
		case golden.Stalled:
			g.c.Warn(guard.GoldenImportStalled, dvSource, "golden %s/%s is importing but failing (phase %q, %d importer restarts); check its importer pod", s.Namespace, s.Name, gd.DataVolume.Status.Phase, gd.DataVolume.Status.RestartCount)
		case golden.Failed:
			g.c.Refuse(guard.GoldenImportFailed, dvSource, s.Name,
				"golden %s/%s failed to import (phase %q, %d importer restarts), so the disk's clone never starts; fix the image's url and re-create the golden", s.Namespace, s.Name, gd.DataVolume.Status.Phase, gd.DataVolume.Status.RestartCount)
		}
	}
	r, err := gd.ResolveClass(stateindex.Of(g.snap).DefaultClass())
	g.resolvedSource(r, err)
}

// observeDisk reads a source in the disk's own namespace: its presence and
// its class.
func (g *interim) observeDisk() {
	s := g.source
	d := stateindex.Of(g.snap).Disk(s.Namespace, s.Name)
	g.claim = d.PVC
	switch {
	case d.DataVolume == nil && d.PVC == nil && (!stateindex.Of(g.snap).Covers(state.DataVolume, s.Namespace, s.Name) || !stateindex.Of(g.snap).Covers(state.PersistentVolumeClaim, s.Namespace, s.Name)):
		g.unverified |= g.missingKinds()
		return
	case d.DataVolume == nil && d.PVC == nil:
		g.c.Warn(guard.GoldenPending, dvSource, "the disk to clone, %s/%s, does not exist yet; CDI holds the clone until it does", s.Namespace, s.Name)
		return
	}
	r, err := storage.Resolve(storage.Input{Named: d.Class(), BoundKnown: true, Default: stateindex.Of(g.snap).DefaultClass()})
	g.resolvedSource(r, err)
}

func (g *interim) resolvedSource(r storage.Resolution, err error) {
	if err == nil {
		g.sourceClass = r
	} else if !stateindex.Of(g.snap).DefaultClass().Known {
		g.unverified |= state.StorageClass
	}
}

func (g *interim) missingKinds() state.Kind {
	var k state.Kind
	for _, kind := range []state.Kind{state.DataVolume, state.PersistentVolumeClaim} {
		if !stateindex.Of(g.snap).Covers(kind, g.source.Namespace, g.source.Name) {
			k |= kind
		}
	}
	return k
}

// refuseMismatch refuses a disk on another class than its source's: one
// class per golden. The consequence comes from the CSI drivers of both
// sides: different drivers copy over the pod network; one driver on two
// classes is a cross-class CSI clone, which the driver may refuse and
// which on a WaitForFirstConsumer class of LINSTOR stays pending for ever.
func (g *interim) refuseMismatch() {
	disk := cdi.ClassDriver(g.snap, g.class.Name)
	src := cdi.ClassDriver(g.snap, g.sourceClass.Name)
	if g.claim != nil {
		src = cdi.ClaimDriver(g.snap, g.claim)
	}
	var consequence string
	switch {
	case !disk.Known() || !src.Known():
		consequence = "CDI would either copy the image over the pod network (different CSI drivers) or attempt a cross-class CSI clone the driver may refuse or leave pending (one driver); the drivers were not all observed"
	case disk.Name != "" && disk.Name == src.Name:
		consequence = fmt.Sprintf("both are on CSI driver %q, so CDI attempts a cross-class CSI clone, which the driver may refuse and which on a WaitForFirstConsumer class of LINSTOR stays pending for ever", disk.Name)
	default:
		consequence = fmt.Sprintf("they are on different CSI drivers (%s and %s), so CDI copies the image over the pod network instead of cloning it at the storage layer", orNoDriver(disk.Name), orNoDriver(src.Name))
	}
	g.c.Refuse(guard.StorageClassMismatch, dvClass, g.class.Name,
		"the disk's class %s differs from class %s, the one %s/%s lives on: %s",
		describe(g.class), describe(g.sourceClass), g.source.Namespace, g.source.Name, consequence)
}

func orNoDriver(d string) string {
	if d == "" {
		return "no CSI driver"
	}
	return fmt.Sprintf("%q", d)
}

// describe says where a class came from, and nothing of a default when
// it was named.
func describe(r storage.Resolution) string {
	if r.From == storage.Default {
		return fmt.Sprintf("%q (the cluster default)", r.Name)
	}
	return fmt.Sprintf("%q", r.Name)
}
