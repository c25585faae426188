package plantest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// Options shape a State draw.
type Options struct {
	// Inconsistent lets a draw show what only a broken cluster, or a
	// hand-written state file, shows: a bound PVC without a class, a
	// golden's DataVolume and PVC on different classes, a succeeded
	// DataVolume whose PVC is pending, two objects of one name, several CDI
	// resources, a capacity below the request, a disk annotated with a
	// name that is no golden's, a StorageProfile of no class, objects of
	// kinds that were not observed.
	Inconsistent bool
	// FullyObserved observes every kind in every namespace. Otherwise some
	// draws leave kinds unknown, observe nothing (an offline plan), or
	// scope the namespaced kinds to some namespaces and read the goldens by
	// name, as the client-go adapter does.
	FullyObserved bool
}

// T0 is the creation time of the oldest drawn StorageClass; the others are
// up to two hours newer, so that defaults tie on creation time too.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// State draws a cluster's state for pools and a catalog, consistent the way
// a real cluster is unless opts says otherwise:
//
//   - StorageClasses of the vocabulary with zero, one or several defaults of
//     each tier (virt, GA, beta), creation times that tie or differ,
//     expansion allowed or not, binding Immediate or WaitForFirstConsumer;
//   - CSIDrivers for most provisioners (never for NoProvisioner);
//   - StorageProfiles with each clone strategy in spec or status and each
//     volume mode, and the CDI resource with each cloneStrategyOverride;
//   - the goldens of the vocabulary's flavors in cozy-public, as the
//     catalog renders them (sometimes edited since), in every CDI phase,
//     known by their DataVolume and PVC, by one of them, or absent; a bound
//     PVC has a class and a golden's PVC carries the golden's name;
//   - for builtin pools, disks that already cloned their golden (annotated
//     with naming.GoldenAnnotation and naming.PoolAnnotation =
//     naming.PoolCAPIName(pool name)), sometimes of an earlier golden or of
//     another pool, succeeded or not, bound or not;
//   - kinds unknown through State.Observed, a namespace scope and objects
//     read by name.
func (v Vocabulary) State(pools []plan.Pool, values catalog.Values, opts Options) *rapid.Generator[*state.State] {
	return rapid.Custom(func(t *rapid.T) *state.State {
		d := &stateDraw{t: t, v: v, opts: opts, st: &state.State{}, goldenClass: map[string]string{}}
		d.classes()
		d.drivers()
		d.profiles()
		d.cdi()
		cat := catalog.Compile(values)
		for _, f := range v.flavors(cat) {
			d.golden(f, cat)
		}
		for _, p := range pools {
			d.disks(p)
		}
		if opts.Inconsistent {
			d.breakages()
		}
		d.observe(pools)
		return d.st
	})
}

// flavors are the vocabulary's flavors and the valid flavors of the
// catalog's entries.
func (v Vocabulary) flavors(cat *catalog.Catalog) []catalog.Flavor {
	out := append([]catalog.Flavor(nil), v.Flavors...)
	for e := range cat.Entries() {
		if e.Golden == "" {
			continue
		}
		known := false
		for _, f := range out {
			known = known || f == e.Flavor
		}
		if !known {
			out = append(out, e.Flavor)
		}
	}
	return out
}

type stateDraw struct {
	t    *rapid.T
	v    Vocabulary
	opts Options
	st   *state.State
	// goldenClass is the class each drawn golden is on, for the disks
	// cloned from it.
	goldenClass map[string]string
}

func (d *stateDraw) classes() {
	t := d.t
	tiers := []string{storage.VirtDefaultAnnotation, storage.DefaultAnnotation, storage.BetaDefaultAnnotation}
	// Most clusters mark one class the default; some none, some several.
	def := -1
	if !chance(t, "noDefault", 6) {
		def = rapid.IntRange(0, len(d.v.Classes)-1).Draw(t, "defaultClass")
	}
	for i, name := range d.v.Classes {
		if chance(t, "classMissing", 8) {
			continue
		}
		sc := storagev1.StorageClass{
			ObjectMeta: metav1.ObjectMeta{
				Name:              name,
				CreationTimestamp: metav1.NewTime(T0.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "classAgeHours")) * time.Hour)),
			},
			Provisioner: d.v.Provisioners[i],
		}
		for j, a := range tiers {
			if i == def && j == 1 || chance(t, "defaultTier", 6) {
				if sc.Annotations == nil {
					sc.Annotations = map[string]string{}
				}
				sc.Annotations[a] = "true"
				if chance(t, "defaultNotTrue", 6) {
					sc.Annotations[a] = rapid.SampledFrom([]string{"false", "True", ""}).Draw(t, "defaultValue")
				}
			}
		}
		switch pick(t, "allowVolumeExpansion", 10, 1, 1) {
		case 0:
			sc.AllowVolumeExpansion = ptr.To(true)
		case 1:
			sc.AllowVolumeExpansion = ptr.To(false)
		}
		switch pick(t, "volumeBindingMode", 3, 1, 1) {
		case 1:
			sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingImmediate)
		case 2:
			sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)
		}
		if chance(t, "allowedTopologies", 8) {
			sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
				{Key: "kubernetes.io/hostname", Values: []string{"node-1"}},
			}}}
		}
		d.st.StorageClasses = append(d.st.StorageClasses, sc)
	}
}

func (d *stateDraw) drivers() {
	seen := map[string]bool{}
	for _, sc := range d.st.StorageClasses {
		p := sc.Provisioner
		if p == NoProvisioner || seen[p] {
			continue
		}
		seen[p] = true
		if !chance(d.t, "driverMissing", 12) {
			d.st.CSIDrivers = append(d.st.CSIDrivers, storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: p}})
		}
	}
}

var cloneStrategies = []cdiv1.CDICloneStrategy{cdiv1.CloneStrategyCsiClone, cdiv1.CloneStrategySnapshot, cdiv1.CloneStrategyHostAssisted}

// strategy draws nil (weighted by none) or one of CDI's clone strategies,
// copy the least often.
func strategy(t *rapid.T, label string, none int) *cdiv1.CDICloneStrategy {
	if pick(t, label+"Set", none, 3) == 0 {
		return nil
	}
	return ptr.To(cloneStrategies[pick(t, label, 3, 2, 1)])
}

func volumeMode(t *rapid.T, label string) *corev1.PersistentVolumeMode {
	switch pick(t, label, 3, 2, 1) {
	case 0:
		return ptr.To(corev1.PersistentVolumeBlock)
	case 1:
		return ptr.To(corev1.PersistentVolumeFilesystem)
	}
	return nil
}

func (d *stateDraw) profiles() {
	t := d.t
	for _, sc := range d.st.StorageClasses {
		if chance(t, "profileMissing", 5) {
			continue
		}
		sp := cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: sc.Name}}
		sp.Status.StorageClass = ptr.To(sc.Name)
		sp.Status.Provisioner = ptr.To(sc.Provisioner)
		sp.Spec.CloneStrategy = strategy(t, "profileSpecCloneStrategy", 6)
		sp.Status.CloneStrategy = strategy(t, "profileStatusCloneStrategy", 2)
		switch pick(t, "claimPropertySets", 4, 1, 1) {
		case 0:
			sp.Status.ClaimPropertySets = []cdiv1.ClaimPropertySet{{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				VolumeMode:  volumeMode(t, "statusVolumeMode"),
			}}
		case 2:
			sp.Spec.ClaimPropertySets = []cdiv1.ClaimPropertySet{{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				VolumeMode:  volumeMode(t, "specVolumeMode"),
			}}
		}
		d.st.StorageProfiles = append(d.st.StorageProfiles, sp)
	}
}

func (d *stateDraw) cdi() {
	if chance(d.t, "cdiMissing", 6) {
		return
	}
	c := cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}}
	c.Spec.CloneStrategyOverride = strategy(d.t, "cloneStrategyOverride", 5)
	d.st.CDIs = append(d.st.CDIs, c)
}

// defaultClass is the cluster's default class as drawn, else a class of the
// vocabulary: the class an object with no class was bound on.
func (d *stateDraw) defaultClass() string {
	if c := storage.DefaultClass(d.st.StorageClasses); c != "" {
		return c
	}
	return rapid.SampledFrom(d.v.Classes).Draw(d.t, "boundClass")
}
