package clone_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/clone"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The cluster of these tests: LINSTOR's replicated (the default) and
// local (WaitForFirstConsumer), both Block and csi-clone, Cozystack's CDI
// override csi-clone, and the golden "golden" imported on replicated.
const (
	tenant  = "tenant-demo"
	linstor = fixtures.ReplicatedProvisioner
	public  = "cozy-public"
)

func classes() []client.Object {
	return []client.Object{
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Expansion(true).Binding(storagev1.VolumeBindingImmediate).Obj(),
		fixtures.StorageClass("local").Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj(),
		fixtures.Profile("replicated", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Profile("local", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(linstor),
		fixtures.CDI(ptr(cdiv1.CloneStrategyCsiClone)),
		fixtures.CDIConfig(fixtures.DefaultOverhead, "replicated", "local"),
	}
}

// goldenOf is the golden, 20Gi Block on class, in phase.
func goldenOf(class string, phase cdiv1.DataVolumePhase) []client.Object {
	dv := fixtures.DataVolume(public, "golden").HTTP("https://images.example.com/golden.img").Size("20Gi").Class(class).Phase(phase).Obj()
	pvc := fixtures.PVC(public, "golden").Class(class).Size("20Gi").VolumeMode(corev1.PersistentVolumeBlock).
		AccessModes(corev1.ReadWriteMany).Bound().Obj()
	return []client.Object{dv, pvc, fixtures.VolumeOf(pvc, linstor)}
}

func snapshot(observed state.Kind, objs ...client.Object) *state.Snapshot {
	return state.NewSnapshot(fixtures.State(observed, objs...))
}

func healthy(extra ...client.Object) *state.Snapshot {
	return snapshot(state.AllKinds, append(append(classes(), goldenOf("replicated", cdiv1.Succeeded)...), extra...)...)
}

// disk is the DataVolume tenant-demo/disk cloning cozy-public/golden.
func disk() *fixtures.DataVolumeBuilder {
	return fixtures.DataVolume(tenant, "disk").ClonesPVC(public, "golden").Size("20Gi")
}

func ptr[T any](v T) *T { return &v }

func f(r guard.Reason, fld string) fixtures.Finding { return fixtures.Finding{Reason: r, Field: fld} }

// without is objs minus those that match drop.
func without(objs []client.Object, drop func(client.Object) bool) []client.Object {
	var out []client.Object
	for _, o := range objs {
		if !drop(o) {
			out = append(out, o)
		}
	}
	return out
}

// TestPlan: each way CDI takes a clone, and each guard, triggered and just
// clear of it, at the DataVolume's fields.
func TestPlan(t *testing.T) {
	const (
		class  = "spec.storage.storageClassName"
		size   = "spec.storage.resources.requests.storage"
		source = "spec.source.pvc"
		ref    = "spec.sourceRef"
	)
	snapshotStrategy := func(withClass bool) *state.Snapshot {
		objs := without(classes(), func(o client.Object) bool { _, ok := o.(*cdiv1.CDI); return ok })
		objs = append(objs, fixtures.CDI(nil))
		for i, o := range objs {
			if p, ok := o.(*cdiv1.StorageProfile); ok {
				objs[i] = fixtures.Profile(p.Name, linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategySnapshot)
			}
		}
		if withClass {
			objs = append(objs, fixtures.SnapshotClass("linstor-snapshots", linstor, true))
		}
		return snapshot(state.AllKinds, append(objs, goldenOf("replicated", cdiv1.Succeeded)...)...)
	}
	noDriver := snapshot(state.AllKinds, append(without(classes(), func(o client.Object) bool { _, ok := o.(*storagev1.CSIDriver); return ok }),
		goldenOf("replicated", cdiv1.Succeeded)...)...)
	cases := map[string]struct {
		reason  string
		dv      *cdiv1.DataVolume
		snap    *state.Snapshot
		method  clone.Method
		waits   bool
		refused []fixtures.Finding
		warns   []fixtures.Finding
	}{
		"csi clone":         {reason: "one class, one driver, the override csi-clone", dv: disk().Class("replicated").Obj(), snap: healthy(), method: clone.CSIClone},
		"the default class": {reason: "no class is CDI's default, the golden's", dv: disk().Obj(), snap: healthy(), method: clone.CSIClone},
		"snapshot clone": {reason: "no override, the profile's snapshot, a snapshot class of the driver", dv: disk().Class("replicated").Obj(),
			snap: snapshotStrategy(true), method: clone.SnapshotClone},
		"snapshot without a class": {reason: "CDI copies: no VolumeSnapshotClass of the driver", dv: disk().Class("replicated").Obj(),
			snap: snapshotStrategy(false), method: clone.HostAssisted, refused: []fixtures.Finding{f(guard.HostAssistedClone, class)}},
		"no CSIDriver": {reason: "the path copies, always", dv: disk().Class("replicated").Obj(), snap: noDriver,
			method: clone.HostAssisted, refused: []fixtures.Finding{f(guard.HostAssistedClone, class)}},
		"usePopulator false": {reason: "CDI's clone without populators copies, whatever the class", dv: disk().Class("replicated").Annotation("cdi.kubevirt.io/storage.usePopulator", "false").Obj(),
			snap: healthy(), method: clone.HostAssisted, refused: []fixtures.Finding{f(guard.HostAssistedClone, class)}},
		"usePopulator true without a CSIDriver": {reason: "the annotation makes CDI use its populator anyway", dv: disk().Class("replicated").Annotation("cdi.kubevirt.io/storage.usePopulator", "true").Obj(),
			snap: noDriver, method: clone.CSIClone},
		"usePopulator unreadable": {reason: "CDI fails every reconcile on it", dv: disk().Class("replicated").Annotation("cdi.kubevirt.io/storage.usePopulator", "no").Obj(),
			snap: healthy(), method: clone.Unknown, refused: []fixtures.Finding{f(guard.InvalidValue, "metadata.annotations[cdi.kubevirt.io/storage.usePopulator]")}},
		"another class, one driver": {reason: "a cross-class CSI clone that WaitForFirstConsumer leaves pending", dv: disk().Class("local").Obj(), snap: healthy(),
			method: clone.CSIClone, refused: []fixtures.Finding{f(guard.StorageClassMismatch, class)}},
		"a class that does not exist": {reason: "CDI never renders the PVC", dv: disk().Class("fast").Obj(), snap: healthy(),
			method: clone.NeverRenders, refused: []fixtures.Finding{f(guard.StorageClassNotFound, class), f(guard.StorageClassMismatch, class)}},
		"smaller than the golden": {reason: "a Block golden of 20Gi into 10Gi: CDI never creates the PVC", dv: disk().Class("replicated").Size("10Gi").Obj(), snap: healthy(),
			method: clone.CSIClone, refused: []fixtures.Finding{f(guard.DiskSmallerThanGolden, size)}},
		"under 1MiB": {reason: "CDI's webhook rejects it", dv: disk().Class("replicated").Size("1Ki").Obj(), snap: healthy(),
			method: clone.NeverRenders, refused: []fixtures.Finding{f(guard.DiskUnrenderable, size)}},
		"golden importing": {reason: "CDI waits for Succeeded", dv: disk().Class("replicated").Obj(),
			snap:   snapshot(state.AllKinds, append(classes(), goldenOf("replicated", cdiv1.ImportInProgress)...)...),
			method: clone.CSIClone, waits: true, warns: []fixtures.Finding{f(guard.GoldenPending, source)}},
		"golden failed": {reason: "the clone never starts", dv: disk().Class("replicated").Obj(),
			snap:   snapshot(state.AllKinds, append(classes(), goldenOf("replicated", cdiv1.Failed)...)...),
			method: clone.CSIClone, refused: []fixtures.Finding{f(guard.GoldenImportFailed, source)}},
		"golden absent": {reason: "CDI holds the clone until its source exists", dv: disk().Class("replicated").Obj(),
			snap: snapshot(state.AllKinds, classes()...), method: clone.Unknown, waits: true, warns: []fixtures.Finding{f(guard.GoldenPending, source)}},
		"golden unobserved": {reason: "unknown is not absent", dv: disk().Class("replicated").Obj(),
			snap: snapshot(state.AllKinds&^(state.DataVolume|state.PersistentVolumeClaim), classes()...), method: clone.Unknown,
			warns: []fixtures.Finding{f(guard.StateUnverified, source)}},
		"sourceRef": {reason: "the DataSource names the golden", dv: fixtures.DataVolume(tenant, "disk").Size("20Gi").Obj(),
			snap: healthy(fixtures.DataSource(public, "ubuntu").Of("golden").Obj()), method: clone.CSIClone},
		"sourceRef chain": {reason: "one level of DataSource, in its namespace", dv: fixtures.DataVolume(tenant, "disk").Size("20Gi").Obj(),
			snap: healthy(fixtures.DataSource(public, "ubuntu").Chain(public, "ubuntu-24").Obj(), fixtures.DataSource(public, "ubuntu-24").Of("golden").Obj()), method: clone.CSIClone},
		"sourceRef chain across namespaces": {reason: "CDI refuses to follow it", dv: fixtures.DataVolume(tenant, "disk").Size("20Gi").Obj(),
			snap:   healthy(fixtures.DataSource(public, "ubuntu").Chain("other", "ubuntu-24").Obj(), fixtures.DataSource("other", "ubuntu-24").Of("golden").Obj()),
			method: clone.Unknown, refused: []fixtures.Finding{f(guard.InvalidValue, ref)}},
		"sourceRef chain too deep": {reason: "CDI follows one level", dv: fixtures.DataVolume(tenant, "disk").Size("20Gi").Obj(),
			snap: healthy(fixtures.DataSource(public, "ubuntu").Chain(public, "ubuntu-24").Obj(), fixtures.DataSource(public, "ubuntu-24").Chain(public, "ubuntu-24.04").Obj(),
				fixtures.DataSource(public, "ubuntu-24.04").Of("golden").Obj()),
			method: clone.Unknown, refused: []fixtures.Finding{f(guard.InvalidValue, ref)}},
		"sourceRef absent": {reason: "CDI does nothing until the DataSource exists", dv: fixtures.DataVolume(tenant, "disk").Size("20Gi").Obj(),
			snap: healthy(), method: clone.Unknown, warns: []fixtures.Finding{f(guard.GoldenPending, ref)}},
		"sourceRef unobserved": {reason: "DataSources were not read", dv: fixtures.DataVolume(tenant, "disk").Size("20Gi").Obj(),
			snap:   snapshot(state.AllKinds&^state.DataSource, append(classes(), goldenOf("replicated", cdiv1.Succeeded)...)...),
			method: clone.Unknown, warns: []fixtures.Finding{f(guard.StateUnverified, ref)}},
		"sourceRef golden importing": {reason: "the source's findings are at spec.sourceRef", dv: fixtures.DataVolume(tenant, "disk").Size("20Gi").Obj(),
			snap: snapshot(state.AllKinds, append(append(classes(), goldenOf("replicated", cdiv1.ImportInProgress)...),
				fixtures.DataSource(public, "ubuntu").Of("golden").Obj())...),
			method: clone.CSIClone, waits: true, warns: []fixtures.Finding{f(guard.GoldenPending, ref)}},
		"an import": {reason: "not a clone of a PVC", dv: fixtures.DataVolume(tenant, "disk").HTTP("https://x.example/y.img").Size("20Gi").Obj(),
			snap: healthy(), method: clone.Unknown, refused: []fixtures.Finding{f(guard.InvalidValue, "spec.source")}},
		"the pvc API": {reason: "CDI takes its PVC as written", dv: disk().Class("replicated").PVCAPI().Obj(),
			snap: healthy(), method: clone.Unknown, refused: []fixtures.Finding{f(guard.InvalidValue, "spec.pvc")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.dv.Spec.Source == nil && tc.dv.Spec.PVC == nil && tc.dv.Spec.SourceRef == nil {
				tc.dv.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Namespace: ptr(public), Name: "ubuntu"}
			}
			res, err := clone.Plan(tc.dv, tc.snap)
			assert.Equal(t, tc.refused, fixtures.Of(res.Refusals), tc.reason)
			assert.Equal(t, len(tc.refused) > 0, err != nil, tc.reason)
			assert.Equal(t, tc.method, res.Method, tc.reason)
			assert.Equal(t, tc.waits, res.Waits, tc.reason)
			for _, w := range tc.warns {
				assert.Contains(t, fixtures.Warned(res.Warnings), w, tc.reason)
			}
			if len(tc.refused) == 0 {
				assert.Equal(t, plan.Planned, res.Outcome)
			} else {
				assert.Equal(t, plan.Refused, res.Outcome)
			}
		})
	}
}

// TestThe2908Clone: the golden on replicated, the disk on local, one
// LINSTOR driver: the message says CDI attempts a cross-class CSI clone
// and names the class to set; the way out is one edit.
func TestThe2908Clone(t *testing.T) {
	res, err := clone.Plan(disk().Class("local").Obj(), healthy())
	require.Error(t, err)
	assert.True(t, errors.Is(err, guard.StorageClassMismatch))
	msg := res.Refusals[0].Error()
	assert.Contains(t, msg, `CSI driver "linstor.csi.linbit.com"`)
	assert.Contains(t, msg, "cross-class CSI clone")
	assert.Contains(t, msg, "set spec.storage.storageClassName: replicated")
	assert.Contains(t, msg, "datavolume tenant-demo/disk")
	assert.Equal(t, storage.Resolution{Name: "local", From: storage.Explicit}, res.StorageClass)
	assert.Equal(t, storage.Resolution{Name: "replicated", From: storage.Explicit}, res.SourceClass)
	assert.Equal(t, "cozy-public/golden", res.Source)

	res, err = clone.Plan(disk().Class("replicated").Obj(), healthy())
	require.NoError(t, err)
	assert.Empty(t, res.Warnings)
}

// TestPredicted: a golden whose PVC CDI has not created yet is judged by
// the PVC CDI will render for it, and the result says so.
func TestPredicted(t *testing.T) {
	dv := fixtures.DataVolume(public, "golden").HTTP("https://images.example.com/golden.img").Size("20Gi").Class("replicated").Phase(cdiv1.ImportScheduled).Obj()
	snap := snapshot(state.AllKinds, append(classes(), dv)...)
	res, _ := clone.Plan(disk().Class("replicated").Size("10Gi").Obj(), snap)
	assert.True(t, res.Predicted)
	assert.True(t, res.Waits)
	require.Equal(t, []fixtures.Finding{f(guard.DiskSmallerThanGolden, "spec.storage.resources.requests.storage")}, fixtures.Of(res.Refusals))
	assert.Contains(t, res.Refusals[0].Detail, "predicted")
}

// TestBadInput: what Plan does not judge is a typed refusal naming the
// field, never a panic.
func TestBadInput(t *testing.T) {
	res, err := clone.Plan(nil, healthy())
	require.Error(t, err)
	assert.Equal(t, plan.Refused, res.Outcome)

	for name, tc := range map[string]struct {
		dv  *cdiv1.DataVolume
		fld string
	}{
		"no storage": {dv: &cdiv1.DataVolume{Spec: cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Name: "golden", Namespace: public}}}}, fld: "spec.storage"},
		"no size":    {dv: func() *cdiv1.DataVolume { d := disk().Obj(); d.Spec.Storage.Resources.Requests = nil; return d }(), fld: "spec.storage.resources.requests.storage"},
		"zero size":  {dv: disk().Size("0").Obj(), fld: "spec.storage.resources.requests.storage"},
		"own volume mode": {dv: func() *cdiv1.DataVolume {
			d := disk().Obj()
			d.Spec.Storage.VolumeMode = ptr(corev1.PersistentVolumeBlock)
			return d
		}(), fld: "spec.storage"},
		"no source name": {dv: disk().ClonesPVC(public, "").Obj(), fld: "spec.source.pvc.name"},
		"sourceRef kind": {dv: func() *cdiv1.DataVolume {
			d := disk().Obj()
			d.Spec.Source = nil
			d.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: "PVC", Name: "x"}
			return d
		}(), fld: "spec.sourceRef.kind"},
		"source and a ref": {dv: func() *cdiv1.DataVolume {
			d := disk().Obj()
			d.Spec.SourceRef = &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: "x"}
			return d
		}(), fld: "spec.source"},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := clone.Plan(tc.dv, healthy())
			require.Error(t, err)
			require.Len(t, res.Refusals, 1)
			assert.Equal(t, tc.fld, res.Refusals[0].Field)
		})
	}
}

// BenchmarkPlan is one DataVolume's clone planned against the healthy
// cluster.
func BenchmarkPlan(b *testing.B) {
	dv, snap := disk().Class("replicated").Obj(), healthy()
	if res, err := clone.Plan(dv, snap); err != nil || len(res.Warnings) != 0 || res.Method != clone.CSIClone {
		b.Fatalf("the benchmark's plan is not clean: %v %v %s", err, res.Warnings, res.Method)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := clone.Plan(dv, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// A golden's PVC that was not read is StateUnverified whether or not the
// PVC CDI would render for the golden can be predicted: here its
// DataVolume states no size, so nothing is predicted, and the PVC (which
// may exist with any request) is what the size guard reads. Read, the same
// golden's PVC leaves nothing unverified.
func TestGoldenClaimUnobservedIsUnverified(t *testing.T) {
	dv := fixtures.DataVolume(public, "golden").HTTP("https://images.example.com/golden.img").Class("replicated").Phase(cdiv1.Succeeded).Obj()
	pvc := fixtures.PVC(public, "golden").Class("replicated").Size("20Gi").VolumeMode(corev1.PersistentVolumeBlock).
		AccessModes(corev1.ReadWriteMany).Bound().Obj()
	refused := func(res clone.Result) []guard.Reason {
		var reasons []guard.Reason
		for _, r := range res.Refusals {
			reasons = append(reasons, r.Reason)
		}
		return reasons
	}
	unverified := func(res clone.Result) []string {
		var kinds []string
		for _, w := range res.Warnings {
			if w.Reason == guard.StateUnverified {
				kinds = append(kinds, w.Kind)
			}
		}
		return kinds
	}
	res, _ := clone.Plan(disk().Class("replicated").Size("10Gi").Obj(),
		snapshot(state.AllKinds&^state.PersistentVolumeClaim, append(classes(), dv)...))
	assert.Contains(t, unverified(res), state.PersistentVolumeClaim.String(), "the golden's PVC was not read: %v", res.Warnings)
	assert.NotContains(t, refused(res), guard.DiskSmallerThanGolden, "its size is not known")

	res, _ = clone.Plan(disk().Class("replicated").Size("10Gi").Obj(),
		snapshot(state.AllKinds, append(classes(), dv, pvc, fixtures.VolumeOf(pvc, linstor))...))
	assert.Empty(t, unverified(res), "read: nothing unverified")
	assert.Contains(t, refused(res), guard.DiskSmallerThanGolden, "read, its 20Gi refuses a 10Gi disk")
}
