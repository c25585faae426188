package invariants_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The fuzz targets of this file cover the parsers of outside input that the
// packages' own fuzz targets leave: names and metadata read from cluster
// objects, quantities, URLs compared across objects. Seeds are under
// testdata/fuzz/<FuzzName>/.

// FuzzParseGoldenName: a name read from the cluster parses as a golden's
// only when GoldenName derives exactly it from the parts, and never panics.
func FuzzParseGoldenName(f *testing.F) {
	f.Fuzz(func(t *testing.T, name string) {
		id, version, ok := naming.ParseGoldenName(name)
		derived, err := naming.GoldenName(id, version, nil, nil)
		if ok && (err != nil || derived != name) {
			t.Fatalf("%q parses as (%q, %q), which derive %q (%v)", name, id, version, derived, err)
		}
		if !ok && (id != "" || version != "") {
			t.Fatalf("%q does not parse, yet returns (%q, %q)", name, id, version)
		}
	})
}

// FuzzSameURL: comparing source URLs read from two objects is an
// equivalence (reflexive, symmetric, transitive) and never panics.
func FuzzSameURL(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if !naming.SameURL(a, a) {
			t.Fatalf("%q is not the same as itself", a)
		}
		ab, ba := naming.SameURL(a, b), naming.SameURL(b, a)
		if ab != ba {
			t.Fatalf("SameURL(%q, %q) = %v, but the other way %v", a, b, ab, ba)
		}
		if ab && naming.SameURL(b, c) && !naming.SameURL(a, c) {
			t.Fatalf("%q = %q = %q, but %q != %q", a, b, c, a, c)
		}
	})
}

// FuzzGoldenObjects builds a golden's DataVolume and PVC in cozy-public, and
// a worker disk that clones it, from arbitrary names, metadata and status,
// as a cluster (or a hand-written state file) may hold them, and runs
// everything that reads goldens: golden.Observe, ReadBack, FromCluster, Render,
// Consumers, Prune and Plan. The bits of form also add the golden PVC's
// PersistentVolume (of the CSI driver named by the class, pointing back at
// the claim or, with another bit, at none), and the class with CDI's
// objects for it (its StorageProfile with the fuzzed volume mode, a
// VolumeSnapshotClass, CDI's config). Nothing panics, every refusal is
// typed with a known reason and a field, a read-back catalog names only
// goldens that parse, and a golden a disk clones is never safe to delete.
func FuzzGoldenObjects(f *testing.F) {
	f.Fuzz(func(t *testing.T, name, id, version, label, phase, running, reason string, restarts int32,
		class, request, capacity, url, pvcPhase, mode string, form uint8) {
		meta := metav1.ObjectMeta{Namespace: naming.GoldenNamespace, Name: name,
			Labels:      map[string]string{naming.ManagedByLabel: label},
			Annotations: map[string]string{naming.SchematicIDAnnotation: id, naming.VersionAnnotation: version, naming.ImportEndpointAnnotation: url}}
		st := &state.State{Observed: state.AllKinds}
		if form&1 != 0 {
			dv := cdiv1.DataVolume{ObjectMeta: *meta.DeepCopy()}
			dv.Spec.Source = &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}}
			dv.Spec.Storage = &cdiv1.StorageSpec{StorageClassName: optional(class)}
			if q, err := resource.ParseQuantity(request); err == nil {
				dv.Spec.Storage.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: q}
			}
			dv.Status = cdiv1.DataVolumeStatus{Phase: cdiv1.DataVolumePhase(phase), RestartCount: restarts,
				Conditions: []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionStatus(running), Reason: reason}}}
			st.DataVolumes = append(st.DataVolumes, dv)
		}
		if form&2 != 0 {
			p := corev1.PersistentVolumeClaim{ObjectMeta: *meta.DeepCopy()}
			p.Spec.StorageClassName = optional(class)
			p.Spec.VolumeMode = (*corev1.PersistentVolumeMode)(optional(mode))
			if q, err := resource.ParseQuantity(request); err == nil {
				p.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: q}
			}
			p.Status.Phase = corev1.PersistentVolumeClaimPhase(pvcPhase)
			if q, err := resource.ParseQuantity(capacity); err == nil {
				p.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: q}
			}
			st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, p)
		}
		disk := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "demo-md0-w1",
			Annotations: map[string]string{naming.GoldenAnnotation: name, naming.PoolAnnotation: naming.PoolCAPIName("demo-md0")}},
			Spec:   corev1.PersistentVolumeClaimSpec{StorageClassName: optional(class)},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
		st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, disk)
		if form&16 != 0 && len(st.PersistentVolumeClaims) > 1 {
			g := &st.PersistentVolumeClaims[0]
			g.Spec.VolumeName = "pv-" + name
			pv := fixtures.Volume(g.Spec.VolumeName).CSI(class)
			if form&32 == 0 {
				pv.ClaimRef(naming.GoldenNamespace, name)
			}
			st.PersistentVolumes = append(st.PersistentVolumes, *pv.Obj())
		}
		if form&64 != 0 && class != "" {
			st.StorageClasses = append(st.StorageClasses, *fixtures.StorageClass(class).Provisioner(class).Obj())
			st.StorageProfiles = append(st.StorageProfiles, *fixtures.StorageProfile(class).Provisioner(class).
				ClaimPropertySets(cdiv1.ClaimPropertySet{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
					VolumeMode: (*corev1.PersistentVolumeMode)(optional(mode))}).Obj())
			st.CSIDrivers = append(st.CSIDrivers, *fixtures.Driver(class))
			st.VolumeSnapshotClasses = append(st.VolumeSnapshotClasses, *fixtures.SnapshotClass("snap-"+class, class, form&128 != 0))
			st.CDIConfigs = append(st.CDIConfigs, *fixtures.CDIConfig(fixtures.DefaultOverhead, class))
		}
		if form&4 != 0 {
			st.Observed &^= state.DataVolume
		}
		if form&8 != 0 {
			st.Observed &^= state.PersistentVolumeClaim
		}
		snap := state.NewSnapshot(st)

		_ = golden.Observe(name, nil, snap)
		values, _ := catalog.ReadBack(snap)
		for _, img := range values.Images {
			if _, _, ok := naming.ParseGoldenName(naming.GoldenPrefix + img.SchematicID + "-" + img.Version); !ok {
				t.Fatalf("read back a flavor that names no golden: %+v", img)
			}
		}
		cat, _ := catalog.FromCluster(snap)
		_, err := catalog.Render(cat, snap)
		typedRefusals(t, err)
		_ = catalog.Consumers(name, snap, plan.PoolGolden)
		report := catalog.Prune(catalog.Compile(catalog.Values{Enabled: true, Images: []catalog.Image{}}), snap, plan.PoolGolden)
		if slices.Contains(report.SafeToDelete, name) {
			t.Fatalf("golden %q is cloned by a disk, yet reported safe to delete", name)
		}

		spec := plan.DefaultPoolSpec("demo")
		spec.StorageClass = class
		spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
		for _, c := range []*catalog.Catalog{cat, catalog.Compile(values)} {
			_, err := plan.Plan(plan.Pool{Namespace: "tenant-a", Name: "demo-md0", Spec: spec}, c, snap)
			typedRefusals(t, err)
		}
	})
}

// FuzzEveryRefusalIsTyped drives the scenario generators of invariant 7
// with the fuzzer's bytes, so that coverage guidance explores the
// generators' space beyond what random draws reach.
func FuzzEveryRefusalIsTyped(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(everyRefusalIsTyped))
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return ptr.To(s)
}

func typedRefusals(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	rs := fixtures.Refusals(err)
	if len(rs) == 0 {
		t.Fatalf("an error that is no refusal: %v", err)
	}
	for _, r := range rs {
		if !fixtures.IsRefusalReason(r.Reason) || r.Field == "" {
			t.Fatalf("a refusal without a known reason or a field: %#v", r)
		}
	}
}
