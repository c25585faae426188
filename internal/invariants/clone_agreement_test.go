package invariants_test

import (
	"slices"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/clone"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// dvToValues maps the DataVolume's fields the generic clone planner
// speaks of to the pool's values fields the worker planner speaks of.
var dvToValues = map[string]string{
	"spec.source.pvc":                         "osImage.builtin",
	"spec.storage.storageClassName":           "storageClass",
	"spec.storage.resources.requests.storage": "diskSize",
}

// poolOnly are the reasons only a pool has: its catalog entry, its flavor,
// its name, its values schema.
var poolOnly = []guard.Reason{guard.GoldenNotInCatalog, guard.GoldenUnavailable, guard.InvalidQuantity, guard.InvalidValue}

// TestCloneAgreesWithWorker: the generic clone planner (plan/clone) and
// the worker-disk planner give the same verdict on every drawn worker
// disk: the DataVolume the kubernetes-nodes chart renders for the pool
// (in its namespace, cloning its golden in cozy-public, at its diskSize,
// on its storageClass) is refused by clone.Plan exactly when the pool is
// refused for its clone, with the same reasons in the same order at the
// same fields once the DataVolume's are mapped to the values' (its
// source to osImage.builtin, its class to storageClass, its size to
// diskSize), and every kind it could not read is one the pool's plan
// says it could not read.
//
// What only a pool has is left out: the findings of its catalog entry,
// flavor, name and values schema, and the three things that change what
// the clone guards are asked: a golden that is not present in the
// cluster (the catalog then says what it will be), a pool that has
// already cloned its golden (its running workers need it no longer), and
// a pool whose namespace's disks were not observed (a disk of the pool
// already bound freezes the pool's class, which the chart, not CDI,
// keeps, and proves the class of a golden that names none).
func TestCloneAgreesWithWorker(t *testing.T) {
	var compared atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		s := cloningScenario(t)
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		for i, p := range s.Pools {
			dv, ok := chartDataVolume(p, cat, snap)
			if !ok {
				continue
			}
			res, _ := plan.Plan(p, cat, snap)
			if hasAt(res.Refusals, "diskSize", guard.InvalidQuantity, guard.InvalidValue) {
				continue // the size the chart writes is refused: no DataVolume of it
			}
			compared.Add(1)
			gen, genErr := clone.Plan(dv, snap)
			want := guardFindings(res.Refusals.Err(), nil)
			got := mapped(findingsOf(gen.Refusals))
			if !slices.Equal(want, got) {
				t.Fatalf("pool %d %s/%s: worker refuses %v, the clone planner %v\nworker: %v\nclone: %v", i, p.Namespace, p.Name, want, got, res.Refusals, gen.Refusals)
			}
			if (len(want) > 0) != (genErr != nil) {
				t.Fatalf("pool %d: worker guard refusals %v, clone planner error %v", i, want, genErr)
			}
			wantW := guardFindings(nil, res.Warnings)
			gotW := mapped(warnedOf(gen.Warnings))
			if !slices.Equal(wantW, gotW) {
				t.Fatalf("pool %d %s/%s: worker warns %v, the clone planner %v", i, p.Namespace, p.Name, wantW, gotW)
			}
			if u, wu := unverified(gen.Warnings), unverified(res.Warnings); u&^wu != 0 {
				t.Fatalf("pool %d: the clone planner could not read %s, the worker planner says only %s", i, u, wu)
			}
		}
	})
	if compared.Load() < 20 {
		t.Fatalf("only %d worker disks compared: the property is near vacuous", compared.Load())
	}
}

// cloningScenario draws a scenario as plantest.Scenarios does, its pools
// all on osImage.builtin alone: the worker disks that clone.
func cloningScenario(t *rapid.T) plantest.Scenario {
	v := plantest.Vocabularies().Draw(t, "vocabulary")
	clones := func(p plan.Pool) bool { _, ok := plantest.Flavor(p); return ok }
	s := plantest.Scenario{Vocabulary: v}
	s.Pools = rapid.SliceOfNDistinct(v.Pool().Filter(clones), 1, 4, func(p plan.Pool) [2]string { return [2]string{p.Namespace, p.Name} }).Draw(t, "pools")
	s.Catalog = v.CatalogValues().Draw(t, "catalog")
	s.State = v.State(s.Pools, s.Catalog, plantest.Options{FullyObserved: rapid.Bool().Draw(t, "fullyObserved")}).Draw(t, "state")
	return s
}

// chartDataVolume is the DataVolume the chart renders for a pool that clones a
// golden, and whether the pool is one the property compares.
func chartDataVolume(p plan.Pool, cat *catalog.Catalog, snap *state.Snapshot) (*cdiv1.DataVolume, bool) {
	f, ok := plantest.Flavor(p)
	if !ok {
		return nil, false
	}
	golden := ""
	if e, found := cat.Lookup(f); found && e.Golden != "" {
		golden = e.Golden
	} else if golden, _ = naming.GoldenName(f.SchematicID, f.Version, nil, nil); golden == "" {
		return nil, false
	}
	if d := stateindex.Of(snap).Disk(naming.GoldenNamespace, golden); d.DataVolume == nil && d.PVC == nil {
		return nil, false // not present: the catalog says what it will be
	}
	pool := naming.PoolCAPIName(p.Name)
	if stateindex.Of(snap).HasCloned(p.Namespace, pool, golden) {
		return nil, false
	}
	if !stateindex.Of(snap).CoversNamespace(state.DataVolume, p.Namespace) || !stateindex.Of(snap).CoversNamespace(state.PersistentVolumeClaim, p.Namespace) {
		return nil, false // the pool's disks may have frozen its class, or proved the golden's
	}
	class := p.Spec.StorageClass
	size := p.Spec.DiskSize
	if size == "" {
		size = chartdefaults.DiskSize
	}
	q, err := resource.ParseQuantity(size)
	if err != nil || q.Sign() <= 0 {
		return nil, false
	}
	dv := &cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name + "-" + plan.DiskName,
			Annotations: map[string]string{naming.GoldenAnnotation: golden, naming.PoolAnnotation: pool}},
		Spec: cdiv1.DataVolumeSpec{
			Source:  &cdiv1.DataVolumeSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: naming.GoldenNamespace, Name: golden}},
			Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: q}}},
		},
	}
	if class != "" {
		dv.Spec.Storage.StorageClassName = &class
	}
	return dv, true
}

// guardFindings are the worker plan's findings the clone guards make, in
// order: those at the clone's fields, of no pool-only reason, and not
// StateUnverified (compared by kind).
func guardFindings(err error, ws guard.Warnings) []finding {
	var all []finding
	if err != nil {
		all = findingsOf(fixtures.Refusals(err))
	} else {
		all = warnedOf(ws)
	}
	var out []finding
	for _, f := range all {
		if slices.Contains(poolOnly, f.Reason) || f.Reason == guard.StateUnverified {
			continue
		}
		switch f.Field {
		case "osImage.builtin", "storageClass", "diskSize":
			out = append(out, f)
		}
	}
	return out
}

// mapped moves the clone planner's findings to the values' fields,
// StateUnverified left out.
func mapped(fs []finding) []finding {
	var out []finding
	for _, f := range fs {
		if f.Reason == guard.StateUnverified {
			continue
		}
		if v, ok := dvToValues[f.Field]; ok {
			f.Field = v
		}
		out = append(out, f)
	}
	return out
}

func findingsOf(rs guard.Refusals) []finding {
	var out []finding
	for _, r := range rs {
		out = append(out, finding{Reason: r.Reason, Field: r.Field})
	}
	return out
}

func warnedOf(ws guard.Warnings) []finding {
	var out []finding
	for _, w := range ws {
		out = append(out, finding{Reason: w.Reason, Field: w.Field})
	}
	return out
}

// hasAt reports whether a refusal of one of reasons is at fld.
func hasAt(rs guard.Refusals, fld string, reasons ...guard.Reason) bool {
	for _, r := range rs {
		if r.Field == fld && slices.Contains(reasons, r.Reason) {
			return true
		}
	}
	return false
}
