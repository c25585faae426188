package invariants_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The cases of this file are the disagreements the CDI properties found
// between the planner and CDI v1.64.0, each beside a neighbour on which
// they agree, stated as fixed states so that they do not depend on a draw.
// Each CDI verdict was measured by running CDI's own code on the state
// (CDI v1.64.0's functions, driven outside the module), and cdiDecide is held
// to it too.

const (
	caseDriver  = "replicated.csi.example.com"
	otherDriver = "other.csi.example.com"
	caseID      = "abc"
)

var caseGolden = naming.GoldenPrefix + caseID + "-" + chartdefaults.Version

// contentTypeAnnotation is the content type CDI marks an imported PVC
// with; a golden's PVC carries "kubevirt".
const contentTypeAnnotation = "cdi.kubevirt.io/storage.contentType"

// caseCluster is a cluster as Cozystack runs CDI: "replicated" on
// caseDriver, "other" on otherDriver (the default when otherDefault, else
// no default), both with CSIDrivers and Block profiles, the CDI resource
// with override, CDI's config.
func caseCluster(override *cdiv1.CDICloneStrategy, otherDefault bool) []client.Object {
	other := fixtures.StorageClass("other").Provisioner(otherDriver).Created(fixtures.Created.Time).Expansion(true)
	if otherDefault {
		other.Default()
	}
	return []client.Object{
		fixtures.StorageClass(chartdefaults.StorageClass).Provisioner(caseDriver).Created(fixtures.Created.Time).Expansion(true).Obj(),
		other.Obj(),
		fixtures.Driver(caseDriver), fixtures.Driver(otherDriver),
		fixtures.StorageProfile(chartdefaults.StorageClass).Provisioner(caseDriver).VolumeMode(corev1.PersistentVolumeBlock).Obj(),
		fixtures.StorageProfile("other").Provisioner(otherDriver).VolumeMode(corev1.PersistentVolumeBlock).Obj(),
		fixtures.CDI(override),
		fixtures.CDIConfig(fixtures.DefaultOverhead, chartdefaults.StorageClass, "other"),
	}
}

// caseClaim is the golden's PVC, Block, 6Gi, on class (nil: none), bound to
// the CSI volume pv-<golden> of driver.
func caseClaim(class *string, driver string) (*corev1.PersistentVolumeClaim, *corev1.PersistentVolume) {
	p := fixtures.GoldenClaim(caseID, chartdefaults.Version).VolumeName("pv-" + caseGolden).Obj()
	p.Spec.StorageClassName = class
	p.Annotations[contentTypeAnnotation] = "kubevirt"
	return p, fixtures.Volume("pv-"+caseGolden).CSI(driver).ClaimRef(naming.GoldenNamespace, caseGolden).Size("6Gi").Obj()
}

// caseDataVolume is the golden's DataVolume, naming no class, in phase.
func caseDataVolume(phase cdiv1.DataVolumePhase) *cdiv1.DataVolume {
	return fixtures.GoldenVolume(caseID, chartdefaults.Version).Class("").Phase(phase).Obj()
}

// TestCDIDisagreementsFound: on each state the plan refuses for a CDI guard
// exactly when CDI would not clone, and its first HostAssistedClone names
// the reason CDI gives; cdiDecide says what CDI's code said.
func TestCDIDisagreementsFound(t *testing.T) {
	csiClone, snapshot := ptr.To(cdiv1.CloneStrategyCsiClone), ptr.To(cdiv1.CloneStrategySnapshot)
	onDriver := func(class *string, driver string) []client.Object {
		p, v := caseClaim(class, driver)
		return []client.Object{p, v}
	}
	profileStrategy := func(objs []client.Object, s cdiv1.CDICloneStrategy) []client.Object {
		for _, o := range objs {
			if sp, ok := o.(*cdiv1.StorageProfile); ok && sp.Name == chartdefaults.StorageClass {
				sp.Status.CloneStrategy = &s
			}
		}
		return objs
	}
	snapshotClasses := func(objs []client.Object) []client.Object {
		for _, o := range objs {
			if sp, ok := o.(*cdiv1.StorageProfile); ok {
				sp.Status.SnapshotClass = ptr.To("snap-x")
			}
		}
		return append(objs, fixtures.SnapshotClass("snap-x", otherDriver, false), fixtures.SnapshotClass("snap-d", caseDriver, false))
	}
	pvcOf := func(objs []client.Object, edit func(*corev1.PersistentVolumeClaim)) []client.Object {
		for _, o := range objs {
			if p, ok := o.(*corev1.PersistentVolumeClaim); ok {
				edit(p)
			}
		}
		return objs
	}
	cloned := fixtures.WorkerDataVolume("tenant-a", "demo-md0-abcde-disk-system", "demo-md0", caseGolden, chartdefaults.StorageClass, cdiv1.Succeeded)
	cases := map[string]struct {
		reason     string
		objs       []client.Object
		class      string // the pool's; "" leaves it to what the planner resolves
		entryClass string
		cdi        cdiOutcome
		cdiReason  string // the CDI reason a host-assisted copy gives first
	}{
		"snapshot across drivers": {
			reason: "under the snapshot strategy CDI looks for a VolumeSnapshotClass of a common driver first, and without one reports \"No compatible volumesnapshotclass found\" (controller/clone/common.go GetCompatibleVolumeSnapshotClass); it never reaches \"Provisioners are incompatible\"",
			objs:   append(snapshotClasses(caseCluster(snapshot, false)), onDriver(ptr.To(chartdefaults.StorageClass), otherDriver)...),
			class:  chartdefaults.StorageClass,
			cdi:    cdiHostAssisted, cdiReason: causeNoSnapshotClass,
		},
		"csi-clone across drivers": {
			reason: "neighbour: under csi-clone CDI says \"Provisioners are incompatible\"",
			objs:   append(caseCluster(csiClone, false), onDriver(ptr.To(chartdefaults.StorageClass), otherDriver)...),
			class:  chartdefaults.StorageClass,
			cdi:    cdiHostAssisted, cdiReason: causeIncompatibleDrivers,
		},
		"profile strategy \"\"": {
			reason: "a class annotated cdi.kubevirt.io/clone-strategy with a value none of CDI's: its profile controller writes status.cloneStrategy \"\", and without an override the clone fails for good (\"unknown strategy/source\", controller/clone/planner.go Plan)",
			objs:   append(profileStrategy(caseCluster(nil, false), ""), onDriver(ptr.To(chartdefaults.StorageClass), caseDriver)...),
			class:  chartdefaults.StorageClass,
			cdi:    cdiFails,
		},
		"profile strategy csi-clone": {
			reason: "neighbour: a strategy CDI knows clones",
			objs:   append(profileStrategy(caseCluster(nil, false), cdiv1.CloneStrategyCsiClone), onDriver(ptr.To(chartdefaults.StorageClass), caseDriver)...),
			class:  chartdefaults.StorageClass,
			cdi:    cdiCSIClone,
		},
		"golden DataVolume without class, PVC gone, disks frozen elsewhere than the default": {
			reason: "CDI re-creates the golden's PVC from its DataVolume (controller/datavolume/controller-base.go handlePvcCreation), on the default (other, another driver), and then copies (\"Provisioners are incompatible\"); the planner predicts the golden's PVC on the class the pool's disks are on",
			objs:   append(caseCluster(csiClone, true), caseDataVolume(cdiv1.Succeeded), cloned),
			cdi:    cdiHostAssisted, cdiReason: causeIncompatibleDrivers,
		},
		"golden DataVolume without class, PVC gone, the default the disks' class": {
			reason: "neighbour: re-created on the disks' class, it is cloned once bound (CDI waits for its capacity until then)",
			objs: append(caseCluster(csiClone, false), caseDataVolume(cdiv1.Succeeded), cloned,
				fixtures.StorageClass(chartdefaults.StorageClass).Provisioner(caseDriver).Created(fixtures.Created.Time).Expansion(true).Default().Obj()),
			cdi: cdiWaits,
		},
		"golden DataVolume without class, PVC pending, no default": {
			reason:     "the golden's PVC names its class; CDI's clone reads the PVC, waits for it to bind (\"source/target size info missing\") and clones; the planner reads a class only from a bound PVC, and refuses DefaultStorageClassUnresolvable",
			objs:       append(caseCluster(csiClone, false), append(pvcOf(onDriver(ptr.To(chartdefaults.StorageClass), caseDriver), pending), caseDataVolume(cdiv1.ImportInProgress))...),
			class:      chartdefaults.StorageClass,
			entryClass: "",
			cdi:        cdiWaits,
		},
		"golden DataVolume without class, PVC bound, no default": {
			reason:     "neighbour: bound, its class is read",
			objs:       append(caseCluster(csiClone, false), append(onDriver(ptr.To(chartdefaults.StorageClass), caseDriver), caseDataVolume(cdiv1.ImportInProgress))...),
			class:      chartdefaults.StorageClass,
			entryClass: "",
			cdi:        cdiCSIClone,
		},
		"golden PVC of class \"\", snapshot": {
			reason: "CDI looks a claim's class up by name, and \"\" is no class (controller/clone/common.go getSnapshotClassForClaim, controller/common/util.go getStorageClassByName): the golden's profile names no snapshot class, so CDI picks the driver's (snap-d) and snapshots; the planner takes the Kubernetes default's profile, whose snap-x is of another driver, and refuses NoVolumeSnapshotClass",
			objs: append(profileStrategy(snapshotClasses(caseCluster(nil, true)), cdiv1.CloneStrategySnapshot),
				onDriver(ptr.To(""), caseDriver)...),
			class: chartdefaults.StorageClass,
			cdi:   cdiSnapshot,
		},
		"golden PVC of no class, snapshot": {
			reason: "neighbour: a claim with no class at all takes the Kubernetes default's profile, so the profiles agree on snap-x, of another driver: a copy",
			objs: append(profileStrategy(snapshotClasses(caseCluster(nil, true)), cdiv1.CloneStrategySnapshot),
				onDriver(nil, caseDriver)...),
			class: chartdefaults.StorageClass,
			cdi:   cdiHostAssisted, cdiReason: causeNoSnapshotClass,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := plan.DefaultPoolSpec("demo")
			spec.StorageClass = tc.class
			spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: caseID}}
			pool := plan.Pool{Namespace: "tenant-a", Name: "demo-md0", Spec: spec}
			v := catalog.Default()
			v.Enabled, v.StorageClass = true, tc.entryClass
			v.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: caseID, Version: chartdefaults.Version}}}
			st := fixtures.State(state.AllKinds, dedupe(tc.objs)...)
			s := plantest.Scenario{State: st, Pools: []plan.Pool{pool}, Catalog: v}
			cat, snap := catalog.Compile(v), state.NewSnapshot(st)
			c, ok := cdiCaseOf(s, cat, snap, pool)
			if !ok {
				t.Fatalf("no case")
			}
			if c.Verdict.Outcome != tc.cdi || tc.cdiReason != "" && c.Verdict.First != tc.cdiReason {
				t.Fatalf("cdiDecide says %s (%s, first %q), CDI's code %s (%s): %s", c.Verdict.Outcome, c.Verdict.Reason, c.Verdict.First, tc.cdi, tc.cdiReason, tc.reason)
			}
			res, _ := plan.Plan(pool, cat, snap)
			// The reasons the refusals carry, as CDI reports them.
			got := plannerReasons(hostAssistedOf(res.Refusals))
			refused := len(cdiRefusals(res.Refusals)) > 0
			// The classes differ where the drivers do: StorageClassMismatch,
			// which says so, stands for CDI's copy (one class per flavor).
			mismatch := slices.ContainsFunc(res.Refusals, func(r *guard.Refusal) bool { return r.Reason == guard.StorageClassMismatch })
			agrees := refused == tc.cdi.refuses() && (tc.cdiReason == "" || len(got) > 0 && got[0] == tc.cdiReason || mismatch)
			if !agrees {
				t.Errorf("CDI %s (%s); the plan is %s, refusals %v: %s", tc.cdi, tc.cdiReason, res.Outcome, res.Refusals, tc.reason)
			}
		})
	}
}

// pending leaves a PVC unbound.
func pending(p *corev1.PersistentVolumeClaim) {
	p.Spec.VolumeName = ""
	p.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
}

// dedupe keeps the last object of each kind and name, so that a case can
// replace one of caseCluster's.
func dedupe(objs []client.Object) []client.Object {
	type key struct{ kind, ns, name string }
	last := map[key]int{}
	for i, o := range objs {
		last[key{kindOf(o), o.GetNamespace(), o.GetName()}] = i
	}
	var out []client.Object
	for i, o := range objs {
		if last[key{kindOf(o), o.GetNamespace(), o.GetName()}] == i {
			out = append(out, o)
		}
	}
	return out
}

func kindOf(o client.Object) string {
	switch o.(type) {
	case *cdiv1.DataVolume:
		return "DataVolume"
	case *corev1.PersistentVolumeClaim:
		return "PersistentVolumeClaim"
	}
	return o.GetObjectKind().GroupVersionKind().Kind
}
