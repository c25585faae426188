package plantest

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
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
	// name that is no golden's, a StorageProfile of no class, a CDIConfig
	// not named "config", a volume bound to no claim, objects of kinds that
	// were not observed.
	Inconsistent bool
	// FullyObserved observes every kind in every namespace. Otherwise some
	// draws leave kinds unknown, observe nothing (an offline plan), or
	// scope the namespaced kinds to some namespaces and read the goldens
	// (and the volumes their PVCs are bound to) by name, as the client-go
	// adapter does.
	FullyObserved bool
}

// t0 is the creation time of the oldest drawn StorageClass; the others are
// up to two hours newer, so that defaults tie on creation time too.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// State draws a cluster's state for pools and a catalog, consistent the way
// a real cluster is unless opts says otherwise:
//
//   - StorageClasses of the vocabulary with zero, one or several defaults of
//     each tier (virt, GA, beta), creation times that tie or differ,
//     expansion allowed or not, binding Immediate or WaitForFirstConsumer;
//   - CSIDrivers for most provisioners (never for noProvisioner);
//   - VolumeSnapshotClasses of the provisioners, some annotated the
//     driver's default, and sometimes one of a driver no class has;
//   - StorageProfiles whose status.claimPropertySets[0] CDI can render
//     from (Block or Filesystem, access modes RWX or RWO) or not (no sets,
//     a first set without access modes, a nil volume mode, which CDI takes
//     for Filesystem), with each clone strategy in status and in spec (which
//     CDI never reads), a status.snapshotClass, a minimumSupportedPvcSize
//     annotation that parses or not;
//   - the CDI resource with each cloneStrategyOverride or none, and CDI's
//     CDIConfig "config" with a global and per-class filesystem overhead
//     in its status, or none;
//   - the goldens of the vocabulary's flavors in cozy-public, as the
//     catalog renders them (sometimes edited since), in every CDI phase,
//     known by their DataVolume and PVC, by one of them, or absent; a bound
//     PVC has a class (or, made by hand, names class "" and is bound to a
//     volume of none), requests what CDI renders for its DataVolume, and a
//     golden's PVC carries the golden's name; a bound golden PVC's
//     PersistentVolume is a CSI volume of its class's driver, or of another
//     driver, a host path, one whose claimRef points at another claim, or
//     missing;
//   - for builtin pools, disks that already cloned their golden (annotated
//     with naming.GoldenAnnotation and naming.PoolAnnotation =
//     naming.PoolCAPIName(pool name)), sometimes of an earlier golden or of
//     another pool, succeeded or not, bound or not;
//   - kinds unknown through State.Observed, a namespace scope and objects
//     read by name.
//
// Half the clusters are drawn healthy, as Cozystack runs CDI: every
// provisioner but noProvisioner has its CSIDriver, every class a
// StorageProfile CDI renders from, CDI its config and a CDI resource that
// overrides the strategy to csi-clone or leaves it to profiles that need
// no copy, a golden's volume is of its class's driver. On those, most clones
// are what CDI makes; on the others every knob above is drawn.
func (v Vocabulary) State(pools []plan.Pool, values catalog.Values, opts Options) *rapid.Generator[*state.State] {
	return rapid.Custom(func(t *rapid.T) *state.State {
		d := &stateDraw{t: t, v: v, opts: opts, st: &state.State{}, goldenClass: map[string]string{}}
		d.unhealthy = chance(t, "unhealthy", 2)
		d.classes()
		d.drivers()
		d.snapshotClasses()
		d.profiles()
		d.cdi()
		d.cdiConfig()
		cat := catalog.Compile(values)
		for _, f := range v.allFlavors(cat) {
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

// allFlavors are the vocabulary's flavors and the valid flavors of the
// catalog's entries.
func (v Vocabulary) allFlavors(cat *catalog.Catalog) []catalog.Flavor {
	out := append([]catalog.Flavor(nil), v.flavors...)
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
	// unhealthy: the cluster's CDI objects are drawn freely; otherwise as
	// Cozystack runs CDI (see State).
	unhealthy bool
}

// fault draws whether a knob of an unhealthy cluster is broken, one time in
// n; a healthy cluster has none.
func (d *stateDraw) fault(label string, n int) bool {
	return d.unhealthy && chance(d.t, label, n)
}

func (d *stateDraw) classes() {
	t := d.t
	tiers := []string{storage.VirtDefaultAnnotation, storage.DefaultAnnotation, storage.BetaDefaultAnnotation}
	// Most clusters mark one class the default; some none, some several.
	def := -1
	if !chance(t, "noDefault", 6) {
		def = rapid.IntRange(0, len(d.v.Classes)-1).Draw(t, "defaultClass")
		if i := slices.Index(d.v.Classes, chartdefaults.StorageClass); i >= 0 && !chance(t, "defaultNotChartClass", 3) {
			// Most often the charts' class, which goldens default to.
			def = i
		}
	}
	for i, name := range d.v.Classes {
		if d.fault("classMissing", 10) {
			continue
		}
		sc := storagev1.StorageClass{
			ObjectMeta: metav1.ObjectMeta{
				Name:              name,
				CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "classAgeHours")) * time.Hour)),
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
		if p == noProvisioner || seen[p] {
			continue
		}
		seen[p] = true
		if !d.fault("driverMissing", 6) {
			d.st.CSIDrivers = append(d.st.CSIDrivers, storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: p}})
		}
	}
}

// defaultClass is the cluster's default class as drawn, else a class of the
// vocabulary: the class an object with no class was bound on.
func (d *stateDraw) defaultClass() string {
	if c := storage.DefaultClass(d.st.StorageClasses); c != "" {
		return c
	}
	return rapid.SampledFrom(d.v.Classes).Draw(d.t, "boundClass")
}
