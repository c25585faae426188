package vmimages

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

var dataVolumeType = metav1.TypeMeta{APIVersion: cdiv1.SchemeGroupVersion.String(), Kind: "DataVolume"}

// newGolden is the entry's DataVolume as the chart renders it.
func newGolden(e *entry) cdiv1.DataVolume {
	ann := map[string]string{
		"vm-default-images.cozystack.io/name": e.name,
		naming.BindImmediateAnnotation:        "true",
		naming.UsePopulatorAnnotation:         "true",
	}
	maps.Copy(ann, e.meta)
	var class *string
	if e.class != "" {
		c := e.class
		class = &c
	}
	return cdiv1.DataVolume{
		TypeMeta: dataVolumeType,
		ObjectMeta: metav1.ObjectMeta{
			Name: e.golden, Namespace: naming.GoldenNamespace, Annotations: ann,
			Labels: map[string]string{naming.ManagedByLabel: naming.ManagedBy},
		},
		Spec: cdiv1.DataVolumeSpec{
			ContentType: cdiv1.DataVolumeKubeVirt,
			Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: e.url}},
			Storage: &cdiv1.StorageSpec{
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: e.size.DeepCopy()}},
				StorageClassName: class,
			},
		},
	}
}

// Render renders the golden DataVolume of every image, in images[]
// order, and checks each against the cluster as CDI will render it
// (internal/cdi Render: the class exists, its StorageProfile has a claim
// property set with access modes, CDI's config exists, the size is at
// least 1MiB; an entry without a class needs a default class CDI reads).
// A golden that exists is compared with its entry: the chart re-renders
// its spec on every upgrade and CDI refuses a change to a DataVolume's
// spec, so each changed field (url, storage as a quantity, the class as
// both sides bind) is CatalogEntryImmutable. Goldens in cozy-public that
// no entry names are listed as unmanaged; the chart keeps none, so one
// that the release made is deleted by the upgrade, and a GoldenUnavailable
// warning says which consumers still clone it.
//
// When Refusals is not empty the catalog is refused and Goldens is empty.
// An unknown catalog (Known false) renders nothing and warns so. A nil
// snapshot knows nothing of the cluster. Render does no I/O and is safe
// for concurrent use.
func Render(cat *Catalog, snap *state.Snapshot) (catalog.RenderResult, error) {
	if cat == nil {
		cat = &Catalog{}
	}
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	r := renderer{snap: snap, def: stateindex.Of(snap).DefaultClass()}
	r.col.Subject = subject
	r.col.Add(cat.refusals)
	for _, w := range cat.warnings {
		r.col.AddWarning(w)
	}
	if !cat.known {
		r.col.Warn(guard.StateUnverified, pathImages,
			"the values do not list images, so the chart's shipped list applies, which this library does not carry; pass the values with their images")
	}
	goldens := []cdiv1.DataVolume{}
	for i := range cat.entries {
		e := &cat.entries[i]
		if !e.renders() {
			continue
		}
		goldens = append(goldens, newGolden(e))
		r.entry(e)
	}
	unmanaged, missing := unmanaged(cat, snap)
	r.unverified |= missing
	if cat.known && len(unmanaged) > 0 {
		r.warnDropped(unmanaged)
	}
	for _, k := range r.unverified.Each() {
		w := findings.NewWarning(guard.StateUnverified, pathImages,
			"%s were not observed, so the goldens' checks that read them did not run; render with the cluster's state to check", k.Plural())
		w.Kind = k.String()
		r.col.AddWarning(w)
	}
	res := catalog.RenderResult{Goldens: []cdiv1.DataVolume{}, Unmanaged: unmanaged, Warnings: r.col.Warnings(), Refusals: r.col.Refusals()}
	if !r.col.Refused() {
		res.Goldens = goldens
	}
	return res, res.Refusals.Err()
}

type renderer struct {
	col        findings.Collector
	snap       *state.Snapshot
	def        stateindex.Default
	unverified state.Kind
}

func (r *renderer) entry(e *entry) {
	g := golden.Observe(e.golden, &golden.Expected{Class: e.class, Request: e.size, URL: e.url}, r.snap)
	switch {
	case g.Presence == golden.Unobserved:
		r.unverified |= missingKinds(r.snap, e.golden)
		r.checkRenders(e)
	case g.Presence == golden.Absent:
		r.checkRenders(e)
	case g.DataVolume != nil:
		r.checkUnchanged(e, &g)
	}
	// A golden known by its PVC alone: the chart creates its DataVolume
	// again, which CDI binds to the PVC it finds populated.
}

// checkRenders refuses an entry whose golden CDI would never render a PVC
// for, at the class's path (the entry's, or the global one it inherits).
func (r *renderer) checkRenders(e *entry) {
	class := e.class
	if class == "" {
		switch {
		case !r.def.Known:
			r.unverified |= state.StorageClass
			return
		case r.def.Name == "":
			r.col.Refuse(guard.DefaultStorageClassUnresolvable, e.classPath, "",
				"image %q names no class and the cluster has no default StorageClass that CDI reads, so CDI never renders golden %s's PVC; set storageClass on the image or the catalog, or mark a class with %s: \"true\"",
				e.name, e.golden, storage.DefaultAnnotation)
			return
		}
		class = r.def.Name
	}
	g := cdi.Render(r.snap, class, e.size)
	r.unverified |= g.Unobserved
	switch {
	case g.UnrenderableSize:
		r.col.Refuse(guard.DiskUnrenderable, e.path().Child("storage"), e.storage,
			"image %q: %s, so golden %s never exists; use a size such as %s", e.name, g.Unrenderable, e.golden, defaultStorage)
	case g.ClassMissing:
		r.col.Refuse(guard.StorageClassNotFound, e.classPath, class,
			"image %q: class %q is not among the cluster's StorageClasses, so CDI never renders golden %s's PVC; set storageClass to a class that exists, or create %q",
			e.name, class, e.golden, class)
	case g.Unrenderable != "":
		r.col.Refuse(guard.DiskUnrenderable, e.classPath, class,
			"image %q: CDI cannot render golden %s's PVC on class %q: %s; %s", e.name, e.golden, class, g.Unrenderable, g.Fix)
	}
}

// checkUnchanged refuses each field of an entry that differs from its
// live golden: the upgrade would patch the DataVolume's spec, which CDI's
// webhook refuses, and the whole release fails.
func (r *renderer) checkUnchanged(e *entry, g *golden.Golden) {
	const way = "a golden's DataVolume cannot change: add an image under a new name with the new values, move the vm-disks onto it, then drop the old one"
	at := e.path()
	if !naming.SameURL(g.URL, e.url) {
		r.col.Refuse(guard.CatalogEntryImmutable, at.Child("url"), e.url,
			"image %q: golden %s imports %q, not %q; %s", e.name, e.golden, g.URL, e.url, way)
	}
	if !g.Request.IsZero() && g.Request.Cmp(e.size) != 0 {
		r.col.Refuse(guard.CatalogEntryImmutable, at.Child("storage"), e.storage,
			"image %q: golden %s requests %s, not %s; %s", e.name, e.golden, g.Request.String(), e.size.String(), way)
	}
	live, lerr := g.ResolveClass(r.def)
	want, werr := storage.Resolve(storage.Input{Named: e.class, BoundKnown: true, Default: r.def.Name, DefaultKnown: r.def.Known})
	switch {
	case lerr != nil || werr != nil:
		if !r.def.Known {
			r.unverified |= state.StorageClass
		}
	case live.Name != want.Name:
		r.col.Refuse(guard.CatalogEntryImmutable, e.classPath, e.class,
			"image %q: golden %s is on class %s, not %s; %s", e.name, e.golden, describe(live), describe(want), way)
	}
}

// warnDropped warns of each golden no entry names that something still
// clones: the chart keeps no golden, so if the release made it the
// upgrade deletes it, and the clones of the disks that still need it never
// finish.
func (r *renderer) warnDropped(names []string) {
	idx := newIndex(r.snap)
	// A kind that may clone a golden and was not read leaves the warning
	// unsaid for its clones: the render says it did not look.
	r.unverified |= idx.Unobserved()
	for _, n := range names {
		cs := idx.Of(n)
		if len(cs) == 0 {
			continue
		}
		list := make([]string, 0, len(cs))
		for _, c := range cs {
			list = append(list, c.Kind+" "+c.Namespace+"/"+c.Name)
		}
		clones := fmt.Sprintf("%d objects clone it", len(cs))
		if len(cs) == 1 {
			clones = "1 object clones it"
		}
		r.col.Warn(guard.GoldenUnavailable, pathImages,
			"golden %s is in no entry, and %s (%s); if this release made it, the upgrade deletes it: keep image %q until they are done",
			n, clones, strings.Join(list, ", "), strings.TrimPrefix(n, GoldenPrefix))
	}
}

func describe(r storage.Resolution) string {
	if r.From == storage.Default {
		return fmt.Sprintf("%q (the cluster default)", r.Name)
	}
	return fmt.Sprintf("%q", r.Name)
}

func missingKinds(snap *state.Snapshot, name string) state.Kind {
	var k state.Kind
	for _, kind := range []state.Kind{state.DataVolume, state.PersistentVolumeClaim} {
		if !stateindex.Of(snap).Covers(kind, naming.GoldenNamespace, name) {
			k |= kind
		}
	}
	return k
}

// unmanaged names, sorted, the goldens in cozy-public (a DataVolume or a
// PVC named vm-default-images-<name>) that no entry of the catalog names,
// and the kinds that were not observed there (the list may then miss
// some). An unknown catalog manages none it could name, so it lists none.
func unmanaged(cat *Catalog, snap *state.Snapshot) ([]string, state.Kind) {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	var missing state.Kind
	for _, k := range []state.Kind{state.DataVolume, state.PersistentVolumeClaim} {
		if !stateindex.Of(snap).CoversNamespace(k, naming.GoldenNamespace) {
			missing |= k
		}
	}
	out := []string{}
	if !cat.Known() {
		return out, missing
	}
	seen := map[string]bool{}
	consider := func(ns, name string) {
		image, ok := strings.CutPrefix(name, GoldenPrefix)
		if ns != naming.GoldenNamespace || !ok || seen[name] {
			return
		}
		seen[name] = true
		if i, managed := cat.byName[image]; !managed || !cat.entries[i].renders() {
			out = append(out, name)
		}
	}
	for dv := range stateindex.Of(snap).DataVolumes() {
		consider(dv.Namespace, dv.Name)
	}
	for p := range stateindex.Of(snap).PersistentVolumeClaims() {
		consider(p.Namespace, p.Name)
	}
	sort.Strings(out)
	return out, missing
}
