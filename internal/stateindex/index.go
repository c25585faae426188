// Package stateindex indexes a state.State once, so every lookup the
// planner makes is a map hit: the queries the module's own packages (plan,
// catalog, the adapters) ask of a state.Snapshot, out of an importer's
// sight. Of returns a snapshot's index.
package stateindex

import (
	"iter"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex/hook"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

func init() { hook.Build = func(src any) any { return build(src.(*state.State)) } }

// empty is the index of the zero State, which knows nothing.
var empty = build(&state.State{})

// Of is the index of snap, built once. A nil snap is the zero State's
// snapshot: it knows nothing.
func Of(snap *state.Snapshot) *Index {
	if snap == nil {
		return empty
	}
	return hook.Index(snap).(*Index)
}

// Key names a namespaced object.
type Key struct{ Namespace, Name string }

// Disk is a worker disk (or a golden) known by its DataVolume, its PVC, or
// both: CDI can garbage-collect a completed DataVolume and leave its PVC,
// which carries the same annotations.
type Disk struct {
	Namespace, Name string
	DataVolume      *cdiv1.DataVolume
	PVC             *corev1.PersistentVolumeClaim
}

// Class is the PVC's class, or the DataVolume's when only it is seen.
func (d Disk) Class() string {
	if d.PVC != nil {
		if c := d.PVC.Spec.StorageClassName; c != nil {
			return *c
		}
		return ""
	}
	return DataVolumeClass(d.DataVolume)
}

// Cloned reports whether the disk is populated: its DataVolume succeeded or
// its PVC is bound.
func (d Disk) Cloned() bool {
	return (d.DataVolume != nil && d.DataVolume.Status.Phase == cdiv1.Succeeded) ||
		(d.PVC != nil && d.PVC.Status.Phase == corev1.ClaimBound)
}

// Annotation reads an annotation from the DataVolume, else the PVC.
func (d Disk) Annotation(key string) string {
	if d.DataVolume != nil {
		if v, ok := d.DataVolume.Annotations[key]; ok {
			return v
		}
	}
	if d.PVC != nil {
		return d.PVC.Annotations[key]
	}
	return ""
}

// DataVolumeClass is the class a DataVolume asks for ("" when none).
func DataVolumeClass(dv *cdiv1.DataVolume) string {
	if dv == nil {
		return ""
	}
	if s := dv.Spec.Storage; s != nil && s.StorageClassName != nil {
		return *s.StorageClassName
	}
	if p := dv.Spec.PVC; p != nil && p.StorageClassName != nil {
		return *p.StorageClassName
	}
	return ""
}

type cloneKey struct{ namespace, pool, golden string }

// Index is an indexed, read-only State: every lookup the planner makes is
// a map hit. It is safe for concurrent use; it keeps pointers into the
// State's slices, which must not change after.
type Index struct {
	observed   state.Kind
	namespaces map[string]bool
	objects    map[state.Ref]bool

	classes  map[string]*storagev1.StorageClass
	def      Default
	k8sDef   string
	pvcs     map[Key]*corev1.PersistentVolumeClaim
	dvs      map[Key]*cdiv1.DataVolume
	profiles map[string]*cdiv1.StorageProfile
	drivers  map[string]*storagev1.CSIDriver
	cdi      *cdiv1.CDI
	// cdiCount is how many CDI resources are not in phase Error.
	cdiCount  int
	config    *cdiv1.CDIConfig
	snapshots map[string]*snapshotv1.VolumeSnapshotClass
	// snapshotOf is, per CSI driver, the VolumeSnapshotClass CDI picks
	// when no StorageProfile names one.
	snapshotOf map[string]string
	volumes    map[string]*corev1.PersistentVolume
	cloned     map[cloneKey][]Disk
	frozen     map[cloneKey][]string
	consumers  consumerIndexes

	src *state.State
}

// build indexes s.
func build(s *state.State) *Index {
	x := &Index{
		observed:   s.Observed & state.AllKinds,
		classes:    make(map[string]*storagev1.StorageClass, len(s.StorageClasses)),
		pvcs:       make(map[Key]*corev1.PersistentVolumeClaim, len(s.PersistentVolumeClaims)),
		dvs:        make(map[Key]*cdiv1.DataVolume, len(s.DataVolumes)),
		profiles:   make(map[string]*cdiv1.StorageProfile, len(s.StorageProfiles)),
		drivers:    make(map[string]*storagev1.CSIDriver, len(s.CSIDrivers)),
		snapshots:  map[string]*snapshotv1.VolumeSnapshotClass{},
		snapshotOf: map[string]string{},
		volumes:    map[string]*corev1.PersistentVolume{},
		cloned:     map[cloneKey][]Disk{},
		frozen:     map[cloneKey][]string{},
		src:        s,
	}
	if s.Namespaces != nil {
		x.namespaces = make(map[string]bool, len(s.Namespaces))
		for _, ns := range s.Namespaces {
			x.namespaces[ns] = true
		}
	}
	if len(s.Objects) > 0 {
		x.objects = make(map[state.Ref]bool, len(s.Objects))
		for _, r := range s.Objects {
			x.objects[r] = true
		}
	}
	if x.observed.Has(state.StorageClass) {
		for i := range s.StorageClasses {
			c := &s.StorageClasses[i]
			x.classes[c.Name] = c
		}
		x.def = Default{Known: true, Name: storage.DefaultClass(s.StorageClasses)}
		x.k8sDef = storage.KubernetesDefaultClass(s.StorageClasses)
	}
	// Objects of a kind, or in a namespace, that was not observed are
	// dropped: what was not observed is unknown, and an object seen by
	// accident must not grant what only an observation may.
	for i := range s.PersistentVolumeClaims {
		p := &s.PersistentVolumeClaims[i]
		if x.Covers(state.PersistentVolumeClaim, p.Namespace, p.Name) {
			x.pvcs[Key{p.Namespace, p.Name}] = p
		}
	}
	for i := range s.DataVolumes {
		d := &s.DataVolumes[i]
		if x.Covers(state.DataVolume, d.Namespace, d.Name) {
			x.dvs[Key{d.Namespace, d.Name}] = d
		}
	}
	for i := range s.StorageProfiles {
		if !x.observed.Has(state.StorageProfile) {
			break
		}
		p := &s.StorageProfiles[i]
		x.profiles[p.Name] = p
	}
	for i := range s.CSIDrivers {
		if !x.observed.Has(state.CSIDriver) {
			break
		}
		d := &s.CSIDrivers[i]
		x.drivers[d.Name] = d
	}
	if x.observed.Has(state.CDI) {
		x.indexCDI(s.CDIs)
	}
	if x.observed.Has(state.CDIConfig) {
		for i := range s.CDIConfigs {
			if s.CDIConfigs[i].Name == CDIConfigName {
				x.config = &s.CDIConfigs[i]
			}
		}
	}
	if x.observed.Has(state.VolumeSnapshotClass) {
		x.indexSnapshotClasses(s.VolumeSnapshotClasses)
	}
	for i := range s.PersistentVolumes {
		v := &s.PersistentVolumes[i]
		if x.Covers(state.PersistentVolume, "", v.Name) {
			x.volumes[v.Name] = v
		}
	}
	x.indexClones()
	x.indexConsumers()
	return x
}

// indexCDI keeps the CDI resource CDI itself uses: the only one, or the only
// one not in phase Error (controller/common/util.go GetActiveCDI). Should a
// broken cluster hold several, the first by name stands in, and CDICount
// says so.
func (x *Index) indexCDI(cdis []cdiv1.CDI) {
	var active []*cdiv1.CDI
	for i := range cdis {
		if len(cdis) == 1 || cdis[i].Status.Phase != "Error" {
			active = append(active, &cdis[i])
		}
	}
	x.cdiCount = len(active)
	for _, c := range active {
		if x.cdi == nil || c.Name < x.cdi.Name {
			x.cdi = c
		}
	}
}

// indexSnapshotClasses picks, per CSI driver, the VolumeSnapshotClass CDI
// snapshots with when no StorageProfile names one
// (controller/common/util.go GetVolumeSnapshotClass): one of the driver's
// annotated snapshot.storage.kubernetes.io/is-default-class "true" (CDI
// takes the first in its list order, which is not defined; the first by
// name stands in), else the first of the driver's by name.
func (x *Index) indexSnapshotClasses(classes []snapshotv1.VolumeSnapshotClass) {
	defaults := map[string]string{}
	for i := range classes {
		c := &classes[i]
		x.snapshots[c.Name] = c
		if first, ok := x.snapshotOf[c.Driver]; !ok || c.Name < first {
			x.snapshotOf[c.Driver] = c.Name
		}
		if c.Annotations[DefaultSnapshotClassAnnotation] == "true" {
			if first, ok := defaults[c.Driver]; !ok || c.Name < first {
				defaults[c.Driver] = c.Name
			}
		}
	}
	maps.Copy(x.snapshotOf, defaults)
}

// indexClones records every populated disk that carries both the pool and
// the golden annotation, merged by name across DataVolumes and PVCs.
func (x *Index) indexClones() {
	add := func(d Disk, pool, golden string) {
		if !d.Cloned() {
			return
		}
		ck := cloneKey{d.Namespace, pool, golden}
		x.cloned[ck] = append(x.cloned[ck], d)
	}
	for i := range x.src.DataVolumes {
		dv := &x.src.DataVolumes[i]
		k := Key{dv.Namespace, dv.Name}
		pool, golden := annotated(dv.Annotations)
		if golden == "" || x.dvs[k] != dv {
			continue
		}
		add(Disk{Namespace: k.Namespace, Name: k.Name, DataVolume: dv, PVC: x.pvcs[k]}, pool, golden)
	}
	for i := range x.src.PersistentVolumeClaims {
		p := &x.src.PersistentVolumeClaims[i]
		k := Key{p.Namespace, p.Name}
		pool, golden := annotated(p.Annotations)
		if golden == "" || x.pvcs[k] != p {
			continue
		}
		dv := x.dvs[k]
		if dv != nil {
			if _, g := annotated(dv.Annotations); g != "" {
				continue // indexed with its DataVolume
			}
		}
		add(Disk{Namespace: k.Namespace, Name: k.Name, DataVolume: dv, PVC: p}, pool, golden)
	}
	for k, ds := range x.cloned {
		slices.SortFunc(ds, func(a, b Disk) int { return strings.Compare(a.Name, b.Name) })
		x.frozen[k] = distinctClasses(ds)
	}
}

// annotated returns a disk's pool and golden annotations, both "" unless
// both are set.
func annotated(a map[string]string) (pool, golden string) {
	pool, golden = a[naming.PoolAnnotation], a[naming.GoldenAnnotation]
	if pool == "" || golden == "" {
		return "", ""
	}
	return pool, golden
}

// distinctClasses lists the disks' classes, sorted, without repeats and
// without "", without a slice of all of them for the common case of one
// class.
func distinctClasses(ds []Disk) []string {
	first := ds[0].Class()
	for _, d := range ds[1:] {
		if d.Class() != first {
			all := make([]string, 0, len(ds))
			for _, d := range ds {
				if c := d.Class(); c != "" {
					all = append(all, c)
				}
			}
			slices.Sort(all)
			return slices.Compact(all)
		}
	}
	if first == "" {
		return nil
	}
	return []string{first}
}

// DataVolumes yields every DataVolume the snapshot holds (those of observed
// namespaces, the later copy of a repeated one), in the State's order.
func (x *Index) DataVolumes() iter.Seq[*cdiv1.DataVolume] {
	return held(x.src.DataVolumes, x.dvs, func(d *cdiv1.DataVolume) Key { return Key{d.Namespace, d.Name} })
}

// PersistentVolumeClaims yields every PersistentVolumeClaim the snapshot
// holds, in the State's order.
func (x *Index) PersistentVolumeClaims() iter.Seq[*corev1.PersistentVolumeClaim] {
	return held(x.src.PersistentVolumeClaims, x.pvcs, func(p *corev1.PersistentVolumeClaim) Key { return Key{p.Namespace, p.Name} })
}

// Observed reports whether every kind of k was observed in full.
func (x *Index) Observed(k state.Kind) bool {
	if !x.observed.Has(k) {
		return false
	}
	return x.namespaces == nil || k&state.Namespaced == 0
}

// Covers reports whether the object (or its absence) was observed: its kind
// was read in its namespace, or it was read by name.
func (x *Index) Covers(k state.Kind, namespace, name string) bool {
	if x.objects[state.Ref{Kind: k, Namespace: namespace, Name: name}] {
		return true
	}
	if !x.observed.Has(k) {
		return false
	}
	return x.namespaces == nil || k&state.Namespaced == 0 || x.namespaces[namespace]
}

// CoversNamespace reports whether kind k was read in full in namespace.
func (x *Index) CoversNamespace(k state.Kind, namespace string) bool {
	if !x.observed.Has(k) {
		return false
	}
	return x.namespaces == nil || k&state.Namespaced == 0 || x.namespaces[namespace]
}

// StorageClass looks a class up by name.
func (x *Index) StorageClass(name string) *storagev1.StorageClass { return x.classes[name] }

// DefaultClass is the cluster default as CDI picks it for a DataVolume.
func (x *Index) DefaultClass() Default { return x.def }

// Default is the cluster default class. Known is false when the
// StorageClasses were not observed; Name is "" when they were and none is a
// default.
type Default struct {
	Name  string
	Known bool
}

// KubernetesDefaultClass is the default of the GA annotation alone
// (storage.KubernetesDefaultClass), "" when there is none or StorageClasses
// were not observed.
func (x *Index) KubernetesDefaultClass() string { return x.k8sDef }

// PVC looks a PersistentVolumeClaim up.
func (x *Index) PVC(namespace, name string) *corev1.PersistentVolumeClaim {
	return x.pvcs[Key{namespace, name}]
}

// DataVolume looks a DataVolume up.
func (x *Index) DataVolume(namespace, name string) *cdiv1.DataVolume {
	return x.dvs[Key{namespace, name}]
}

// Disk is the DataVolume and the PVC of one name, either possibly nil.
func (x *Index) Disk(namespace, name string) Disk {
	k := Key{namespace, name}
	return Disk{Namespace: namespace, Name: name, DataVolume: x.dvs[k], PVC: x.pvcs[k]}
}

// StorageProfile looks CDI's StorageProfile of a class up.
func (x *Index) StorageProfile(class string) *cdiv1.StorageProfile { return x.profiles[class] }

// CSIDriver looks a CSIDriver up by name.
func (x *Index) CSIDriver(name string) *storagev1.CSIDriver { return x.drivers[name] }

// CDI is the CDI resource CDI uses, nil when there is none.
func (x *Index) CDI() *cdiv1.CDI { return x.cdi }

// CDICount is how many CDI resources CDI could use: 1 on a healthy
// cluster; with 0 or several, CDI's clones wait ("no active CDI", "invalid
// number of active CDI resources").
func (x *Index) CDICount() int { return x.cdiCount }

// CDIConfigName is the name of the one CDIConfig CDI reads.
const CDIConfigName = "config"

// CDIConfig is CDI's config named "config", nil when there is none.
func (x *Index) CDIConfig() *cdiv1.CDIConfig { return x.config }

// DefaultSnapshotClassAnnotation marks a driver's default
// VolumeSnapshotClass.
const DefaultSnapshotClassAnnotation = "snapshot.storage.kubernetes.io/is-default-class"

// VolumeSnapshotClass looks a VolumeSnapshotClass up by name.
func (x *Index) VolumeSnapshotClass(name string) *snapshotv1.VolumeSnapshotClass {
	return x.snapshots[name]
}

// SnapshotClassOf is the VolumeSnapshotClass CDI picks for a CSI driver
// when no StorageProfile names one, "" when the driver has none.
func (x *Index) SnapshotClassOf(driver string) string { return x.snapshotOf[driver] }

// PersistentVolume looks a PersistentVolume up by name.
func (x *Index) PersistentVolume(name string) *corev1.PersistentVolume { return x.volumes[name] }

// ClonedDisks lists, by name, the populated disks in namespace that carry the
// pool's annotation (its CAPI name) and the golden's: the disks that prove a
// pool has already cloned its golden. The slice is the caller's.
func (x *Index) ClonedDisks(namespace, poolCAPIName, golden string) []Disk {
	return slices.Clone(x.cloned[cloneKey{namespace, poolCAPIName, golden}])
}

// HasCloned reports whether ClonedDisks would list any disk.
func (x *Index) HasCloned(namespace, poolCAPIName, golden string) bool {
	return len(x.cloned[cloneKey{namespace, poolCAPIName, golden}]) > 0
}

// ClonedClasses lists, sorted, without repeats and without "", the classes
// of the disks ClonedDisks returns: what an empty class is frozen to. The
// slice is the caller's.
func (x *Index) ClonedClasses(namespace, poolCAPIName, golden string) []string {
	return slices.Clone(x.frozen[cloneKey{namespace, poolCAPIName, golden}])
}
