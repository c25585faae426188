package stateindex_test

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// singleKinds are the kinds, one by one.
var singleKinds = state.AllKinds.Each()

// TestZeroStateKnowsNothing: unknown is never absent nor present.
func TestZeroStateKnowsNothing(t *testing.T) {
	cases := map[string]struct {
		reason string
		s      *state.State
	}{
		"nil":  {"a nil State is the zero State", nil},
		"zero": {"the zero State observed nothing", &state.State{}},
		"objects without observation": {
			reason: "objects handed over without their kind observed are not knowledge: they are dropped",
			s: &state.State{
				StorageClasses:         []storagev1.StorageClass{sc("replicated", map[string]string{storage.DefaultAnnotation: "true"})},
				PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "d", "replicated", corev1.ClaimBound, annotated(pool, golden))},
				DataVolumes:            []cdiv1.DataVolume{dv(tenant, "d", "replicated", cdiv1.Succeeded, annotated(pool, golden))},
				StorageProfiles:        []cdiv1.StorageProfile{{ObjectMeta: metav1.ObjectMeta{Name: "replicated"}}},
				CDIs:                   []cdiv1.CDI{{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}}},
				CSIDrivers:             []storagev1.CSIDriver{{ObjectMeta: metav1.ObjectMeta{Name: "csi"}}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := index(tc.s)
			for _, k := range singleKinds {
				if x.Observed(k) || x.Covers(k, tenant, "d") || x.CoversNamespace(k, tenant) {
					t.Errorf("%s: %s is observed or covered", tc.reason, k)
				}
			}
			if d := x.DefaultClass(); d.Known || d.Name != "" {
				t.Errorf("%s: default class %+v, want unknown", tc.reason, d)
			}
			if x.StorageClass("replicated") != nil || x.PVC(tenant, "d") != nil || x.DataVolume(tenant, "d") != nil ||
				x.StorageProfile("replicated") != nil || x.CSIDriver("csi") != nil || x.CDI() != nil {
				t.Errorf("%s: a lookup found an object of a kind that was not observed", tc.reason)
			}
			if d := x.Disk(tenant, "d"); d.DataVolume != nil || d.PVC != nil {
				t.Errorf("%s: Disk found %+v", tc.reason, d)
			}
			if ds := x.ClonedDisks(tenant, pool, golden); len(ds) != 0 || x.HasCloned(tenant, pool, golden) {
				t.Errorf("%s: ClonedDisks = %v: a waiver resting on presence needs the kind observed", tc.reason, ds)
			}
			for d := range x.DataVolumes() {
				t.Errorf("%s: DataVolumes yielded %s", tc.reason, d.Name)
			}
			for p := range x.PersistentVolumeClaims() {
				t.Errorf("%s: PersistentVolumeClaims yielded %s", tc.reason, p.Name)
			}
		})
	}
}

func TestObservedAndCovers(t *testing.T) {
	type query struct {
		kind      state.Kind
		namespace string
		name      string
	}
	goldenPVC := state.Ref{Kind: state.PersistentVolumeClaim, Namespace: naming.GoldenNamespace, Name: golden}
	cases := map[string]struct {
		reason    string
		s         state.State
		q         query
		observed  bool // Observed(q.kind)
		covers    bool // Covers(q.kind, q.namespace, q.name)
		namespace bool // CoversNamespace(q.kind, q.namespace)
	}{
		"all observed": {
			reason:   "a kind observed without a namespace scope covers every namespace",
			s:        state.State{Observed: state.AllKinds},
			q:        query{state.PersistentVolumeClaim, tenant, "d"},
			observed: true, covers: true, namespace: true,
		},
		"kind not observed": {
			reason: "the neighbour kind observed does not cover this one",
			s:      state.State{Observed: state.DataVolume},
			q:      query{state.PersistentVolumeClaim, tenant, "d"},
		},
		"in scope": {
			reason:   "a namespaced kind read in the pool's namespace covers it, but is not observed in full",
			s:        state.State{Observed: state.AllKinds, Namespaces: []string{tenant}},
			q:        query{state.PersistentVolumeClaim, tenant, "d"},
			observed: false, covers: true, namespace: true,
		},
		"out of scope": {
			reason: "a namespace outside the scope is not covered",
			s:      state.State{Observed: state.AllKinds, Namespaces: []string{tenant}},
			q:      query{state.DataVolume, "tenant-b", "d"},
		},
		"empty scope": {
			reason: "an empty, non-nil scope covers no namespace (nil means all)",
			s:      state.State{Observed: state.AllKinds, Namespaces: []string{}},
			q:      query{state.DataVolume, tenant, "d"},
		},
		"cluster-scoped kind with scope": {
			reason:   "a namespace scope does not limit cluster-scoped kinds",
			s:        state.State{Observed: state.AllKinds, Namespaces: []string{tenant}},
			q:        query{state.StorageClass, "", "replicated"},
			observed: true, covers: true, namespace: true,
		},
		"read by name": {
			reason: "an object read by name is covered (found or not) though its kind was not listed",
			s:      state.State{Objects: []state.Ref{goldenPVC}},
			q:      query{state.PersistentVolumeClaim, naming.GoldenNamespace, golden},
			covers: true,
		},
		"read by name, neighbour": {
			reason: "another object of the same namespace is not covered by a read by name",
			s:      state.State{Objects: []state.Ref{goldenPVC}},
			q:      query{state.PersistentVolumeClaim, naming.GoldenNamespace, "talos-worker-ce4c-v1.13.7"},
		},
		"read by name, other kind": {
			reason: "the DataVolume of the same name is not covered by reading the PVC",
			s:      state.State{Objects: []state.Ref{goldenPVC}},
			q:      query{state.DataVolume, naming.GoldenNamespace, golden},
		},
		"read by name outside scope": {
			reason: "a golden read by name is covered outside the tenant scope",
			s:      state.State{Observed: state.AllKinds, Namespaces: []string{tenant}, Objects: []state.Ref{goldenPVC}},
			q:      query{state.PersistentVolumeClaim, naming.GoldenNamespace, golden},
			covers: true,
		},
		"foreign bits": {
			reason: "bits beyond AllKinds observe nothing",
			s:      state.State{Observed: ^state.AllKinds},
			q:      query{state.StorageClass, "", "x"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := index(&tc.s)
			if got := x.Observed(tc.q.kind); got != tc.observed {
				t.Errorf("%s: Observed = %v, want %v", tc.reason, got, tc.observed)
			}
			if got := x.Covers(tc.q.kind, tc.q.namespace, tc.q.name); got != tc.covers {
				t.Errorf("%s: Covers = %v, want %v", tc.reason, got, tc.covers)
			}
			if got := x.CoversNamespace(tc.q.kind, tc.q.namespace); got != tc.namespace {
				t.Errorf("%s: CoversNamespace = %v, want %v", tc.reason, got, tc.namespace)
			}
		})
	}
}

func TestObservedKindSets(t *testing.T) {
	x := index(&state.State{Observed: state.StorageClass | state.CDI})
	cases := map[string]struct {
		reason string
		k      state.Kind
		want   bool
	}{
		"both":     {"a set is observed when every kind in it is", state.StorageClass | state.CDI, true},
		"one":      {"one kind of the set", state.CDI, true},
		"one more": {"a set with one kind not observed is not observed", state.StorageClass | state.CSIDriver, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := x.Observed(tc.k); got != tc.want {
				t.Errorf("%s: Observed(%s) = %v, want %v", tc.reason, tc.k, got, tc.want)
			}
		})
	}
}

func TestSnapshotLookups(t *testing.T) {
	s := &state.State{
		Observed: state.AllKinds,
		StorageClasses: []storagev1.StorageClass{
			sc("local", nil),
			sc("replicated", map[string]string{storage.DefaultAnnotation: "true"}),
		},
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(naming.GoldenNamespace, golden, "replicated", corev1.ClaimBound, nil)},
		DataVolumes:            []cdiv1.DataVolume{dv(naming.GoldenNamespace, golden, "replicated", cdiv1.Succeeded, nil)},
		StorageProfiles:        []cdiv1.StorageProfile{{ObjectMeta: metav1.ObjectMeta{Name: "replicated"}}},
		CSIDrivers:             []storagev1.CSIDriver{{ObjectMeta: metav1.ObjectMeta{Name: "linstor.csi.linbit.com"}}},
		CDIs: []cdiv1.CDI{
			{ObjectMeta: metav1.ObjectMeta{Name: "zz-stray"}},
			{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}},
		},
	}
	x := index(s)
	for p := range x.PersistentVolumeClaims() {
		if p != &s.PersistentVolumeClaims[0] {
			t.Error("PersistentVolumeClaims must yield the objects of the State the snapshot indexes, not copies")
		}
	}
	for d := range x.DataVolumes() {
		if d != &s.DataVolumes[0] {
			t.Error("DataVolumes must yield the objects of the State the snapshot indexes, not copies")
		}
	}
	if c := x.StorageClass("local"); c == nil || c.Name != "local" {
		t.Errorf("StorageClass(local) = %v", c)
	}
	if x.StorageClass("missing") != nil {
		t.Error("a class that does not exist is nil")
	}
	if d := x.DefaultClass(); d != (stateindex.Default{Name: "replicated", Known: true}) {
		t.Errorf("DefaultClass = %+v, want replicated, known", d)
	}
	if p := x.PVC(naming.GoldenNamespace, golden); p == nil || p.Name != golden {
		t.Errorf("PVC lookup = %v", p)
	}
	if x.PVC(tenant, golden) != nil {
		t.Error("the same name in another namespace is another object")
	}
	if d := x.DataVolume(naming.GoldenNamespace, golden); d == nil || d.Name != golden {
		t.Errorf("DataVolume lookup = %v", d)
	}
	if d := x.Disk(naming.GoldenNamespace, golden); d.DataVolume == nil || d.PVC == nil || d.Namespace != naming.GoldenNamespace || d.Name != golden {
		t.Errorf("Disk must join the DataVolume and the PVC of one name, got %+v", d)
	}
	if p := x.StorageProfile("replicated"); p == nil {
		t.Error("StorageProfile(replicated) not found")
	}
	if x.StorageProfile("local") != nil {
		t.Error("a class without a profile has none")
	}
	if x.CSIDriver("linstor.csi.linbit.com") == nil || x.CSIDriver("other") != nil {
		t.Error("CSIDriver lookup by name")
	}
	if c := x.CDI(); c == nil || c.Name != "cdi" {
		t.Errorf("with several CDI resources the first by name decides, never list order; got %v", c)
	}
}

func TestSnapshotNoDefault(t *testing.T) {
	x := index(&state.State{Observed: state.StorageClass, StorageClasses: []storagev1.StorageClass{sc("local", nil)}})
	if d := x.DefaultClass(); d != (stateindex.Default{Known: true}) {
		t.Errorf("classes observed without a default: want known and empty, got %+v", d)
	}
}

func TestSnapshotDropsWhatItDidNotObserve(t *testing.T) {
	x := index(&state.State{
		Observed:   state.PersistentVolumeClaim | state.DataVolume,
		Namespaces: []string{tenant},
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{
			pvc(tenant, "in", "a", corev1.ClaimBound, annotated(pool, golden)),
			pvc("tenant-b", "out", "a", corev1.ClaimBound, annotated(pool, golden)),
		},
		DataVolumes: []cdiv1.DataVolume{dv("tenant-b", "out", "a", cdiv1.Succeeded, annotated(pool, golden))},
	})
	if x.PVC(tenant, "in") == nil {
		t.Error("a PVC in the observed namespace is kept")
	}
	if x.PVC("tenant-b", "out") != nil || x.DataVolume("tenant-b", "out") != nil {
		t.Error("objects outside the observed namespaces are dropped: what was not observed is unknown")
	}
	if ds := x.ClonedDisks("tenant-b", pool, golden); len(ds) != 0 {
		t.Errorf("a disk outside the observed namespaces grants no waiver, got %v", ds)
	}
}

// TestSnapshotConcurrentReads: a Snapshot is shared between goroutines
// (run with -race).
func TestSnapshotConcurrentReads(t *testing.T) {
	x := index(&state.State{
		Observed:               state.AllKinds,
		StorageClasses:         []storagev1.StorageClass{sc("replicated", map[string]string{storage.DefaultAnnotation: "true"})},
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "d", "replicated", corev1.ClaimBound, annotated(pool, golden))},
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_ = x.DefaultClass()
				_ = x.Covers(state.PersistentVolumeClaim, tenant, "d")
				if len(x.ClonedDisks(tenant, pool, golden)) != 1 {
					t.Error("concurrent ClonedDisks lost the disk")
				}
			}
		})
	}
	wg.Wait()
}

func TestClonedDisks(t *testing.T) {
	other := "talos-worker-ce4c-v1.13.5"
	type disk struct {
		Name, Class string
		DV, PVC     bool
	}
	cases := map[string]struct {
		reason string
		s      state.State
		ns     string // default tenant
		pool   string // default pool
		golden string // default golden
		want   []disk
	}{
		"DataVolume succeeded": {
			reason: "a succeeded DataVolume with both annotations has cloned",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dv(tenant, "w1", "replicated", cdiv1.Succeeded, annotated(pool, golden))}},
			want:   []disk{{"w1", "replicated", true, false}},
		},
		"DataVolume importing": {
			reason: "a DataVolume still cloning has not: it is no proof",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dv(tenant, "w1", "replicated", cdiv1.CloneInProgress, annotated(pool, golden))}},
		},
		"DataVolume failed": {
			reason: "a failed DataVolume has not cloned",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dv(tenant, "w1", "replicated", cdiv1.Failed, annotated(pool, golden))}},
		},
		"PVC bound": {
			reason: "a bound PVC with both annotations has cloned, its DataVolume garbage-collected",
			s:      state.State{Observed: state.PersistentVolumeClaim, PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "w1", "replicated", corev1.ClaimBound, annotated(pool, golden))}},
			want:   []disk{{"w1", "replicated", false, true}},
		},
		"PVC pending": {
			reason: "a pending PVC has not cloned",
			s:      state.State{Observed: state.PersistentVolumeClaim, PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "w1", "replicated", corev1.ClaimPending, annotated(pool, golden))}},
		},
		"merged by name": {
			reason: "a DataVolume and its PVC are one disk, listed once, class from the PVC",
			s: state.State{
				Observed:               state.DataVolume | state.PersistentVolumeClaim,
				DataVolumes:            []cdiv1.DataVolume{dv(tenant, "w1", "", cdiv1.Succeeded, annotated(pool, golden))},
				PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "w1", "replicated", corev1.ClaimBound, annotated(pool, golden))},
			},
			want: []disk{{"w1", "replicated", true, true}},
		},
		"DataVolume pending, PVC bound": {
			reason: "either proof is enough: a bound PVC under a DataVolume not marked Succeeded",
			s: state.State{
				Observed:               state.DataVolume | state.PersistentVolumeClaim,
				DataVolumes:            []cdiv1.DataVolume{dv(tenant, "w1", "replicated", cdiv1.PendingPopulation, annotated(pool, golden))},
				PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "w1", "replicated", corev1.ClaimBound, nil)},
			},
			want: []disk{{"w1", "replicated", true, true}},
		},
		"annotations on the PVC only": {
			reason: "the PVC carries the same annotations: a DataVolume without them does not hide the disk",
			s: state.State{
				Observed:               state.DataVolume | state.PersistentVolumeClaim,
				DataVolumes:            []cdiv1.DataVolume{dv(tenant, "w1", "replicated", cdiv1.Succeeded, nil)},
				PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "w1", "replicated", corev1.ClaimBound, annotated(pool, golden))},
			},
			want: []disk{{"w1", "replicated", true, true}},
		},
		"DataVolume class from spec.storage": {
			reason: "only the DataVolume seen: its storage.storageClassName is the disk's class",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dv(tenant, "w1", "fast", cdiv1.Succeeded, annotated(pool, golden))}},
			want:   []disk{{"w1", "fast", true, false}},
		},
		"DataVolume class from spec.pvc": {
			reason: "only the DataVolume seen, on the pvc API: its pvc.storageClassName is the disk's class",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dvPVCAPI(tenant, "w1", "fast", cdiv1.Succeeded, annotated(pool, golden))}},
			want:   []disk{{"w1", "fast", true, false}},
		},
		"pool annotation missing": {
			reason: "a disk without the pool annotation is not the pool's",
			s: state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{
				dv(tenant, "w1", "replicated", cdiv1.Succeeded, map[string]string{naming.GoldenAnnotation: golden}),
			}},
		},
		"golden annotation missing": {
			reason: "a disk without the golden annotation did not clone this golden",
			s: state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{
				dv(tenant, "w1", "replicated", cdiv1.Succeeded, map[string]string{naming.PoolAnnotation: pool}),
			}},
		},
		"earlier golden": {
			reason: "disks of an earlier golden belong to a flavor the pool has left",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dv(tenant, "w1", "replicated", cdiv1.Succeeded, annotated(pool, other))}},
		},
		"other pool": {
			reason: "another pool's disks are not this pool's",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dv(tenant, "w1", "replicated", cdiv1.Succeeded, annotated("kubernetes-demo-md1", golden))}},
		},
		"other namespace": {
			reason: "a pool's disks are in the pool's namespace only",
			s:      state.State{Observed: state.DataVolume, DataVolumes: []cdiv1.DataVolume{dv("tenant-b", "w1", "replicated", cdiv1.Succeeded, annotated(pool, golden))}},
		},
		"sorted by name": {
			reason: "several disks come back by name, whatever the list order, each on its own class",
			s: state.State{
				Observed: state.DataVolume | state.PersistentVolumeClaim,
				DataVolumes: []cdiv1.DataVolume{
					dv(tenant, "w3", "a", cdiv1.Succeeded, annotated(pool, golden)),
					dv(tenant, "w1", "b", cdiv1.Succeeded, annotated(pool, golden)),
				},
				PersistentVolumeClaims: []corev1.PersistentVolumeClaim{pvc(tenant, "w2", "a", corev1.ClaimBound, annotated(pool, golden))},
			},
			want: []disk{{"w1", "b", true, false}, {"w2", "a", false, true}, {"w3", "a", true, false}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := index(&tc.s)
			var got []disk
			for _, d := range x.ClonedDisks(tenant, pool, golden) {
				if d.Namespace != tenant {
					t.Errorf("%s: disk %s in namespace %q", tc.reason, d.Name, d.Namespace)
				}
				got = append(got, disk{d.Name, d.Class(), d.DataVolume != nil, d.PVC != nil})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\nwant %+v\ngot  %+v", tc.reason, tc.want, got)
			}
		})
	}
}

func TestDisk(t *testing.T) {
	bound := pvc(tenant, "w1", "pvc-class", corev1.ClaimBound, map[string]string{"k": "from-pvc", "p": "only-pvc"})
	noClass := pvc(tenant, "w1", "", corev1.ClaimBound, nil)
	done := dv(tenant, "w1", "dv-class", cdiv1.Succeeded, map[string]string{"k": "from-dv"})
	cases := map[string]struct {
		reason string
		d      stateindex.Disk
		class  string
		cloned bool
		ann    map[string]string // key → want
	}{
		"both": {
			reason: "the PVC's class wins; annotations are read from the DataVolume first",
			d:      stateindex.Disk{DataVolume: &done, PVC: &bound},
			class:  "pvc-class", cloned: true,
			ann: map[string]string{"k": "from-dv", "p": "only-pvc", "none": ""},
		},
		"PVC without class": {
			reason: "a PVC is the truth even without a class: the DataVolume's is not read",
			d:      stateindex.Disk{DataVolume: &done, PVC: &noClass},
			class:  "", cloned: true,
		},
		"DataVolume only": {
			reason: "only the DataVolume seen: its class",
			d:      stateindex.Disk{DataVolume: &done},
			class:  "dv-class", cloned: true,
			ann: map[string]string{"k": "from-dv", "p": ""},
		},
		"nothing": {
			reason: "a disk known by neither has no class, is not cloned and has no annotations",
			d:      stateindex.Disk{},
			ann:    map[string]string{"k": ""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.d.Class(); got != tc.class {
				t.Errorf("%s: Class = %q, want %q", tc.reason, got, tc.class)
			}
			if got := tc.d.Cloned(); got != tc.cloned {
				t.Errorf("%s: Cloned = %v, want %v", tc.reason, got, tc.cloned)
			}
			for k, want := range tc.ann {
				if got := tc.d.Annotation(k); got != want {
					t.Errorf("%s: Annotation(%s) = %q, want %q", tc.reason, k, got, want)
				}
			}
		})
	}
}

func TestDataVolumeClass(t *testing.T) {
	storageAPI := dv(tenant, "a", "s", cdiv1.Succeeded, nil)
	pvcAPI := dvPVCAPI(tenant, "a", "p", cdiv1.Succeeded, nil)
	none := dv(tenant, "a", "", cdiv1.Succeeded, nil)
	empty := cdiv1.DataVolume{}
	cases := map[string]struct {
		reason string
		d      *cdiv1.DataVolume
		want   string
	}{
		"nil":         {"no DataVolume, no class", nil, ""},
		"storage API": {"spec.storage.storageClassName", &storageAPI, "s"},
		"pvc API":     {"spec.pvc.storageClassName", &pvcAPI, "p"},
		"no class":    {"a DataVolume that names no class asks for the default", &none, ""},
		"no spec":     {"neither storage nor pvc", &empty, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := stateindex.DataVolumeClass(tc.d); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

// TestSnapshotIterators: DataVolumes and PersistentVolumeClaims yield what
// the snapshot kept, in the State's order: not an object of a namespace or
// kind that was not observed, not the earlier copy of an object listed
// twice; and they stop when the caller breaks.
func TestSnapshotIterators(t *testing.T) {
	s := &state.State{
		Observed:   state.PersistentVolumeClaim | state.DataVolume,
		Namespaces: []string{tenant, naming.GoldenNamespace},
		DataVolumes: []cdiv1.DataVolume{
			dv(tenant, "w2", "a", cdiv1.Succeeded, nil),
			dv("tenant-b", "out", "a", cdiv1.Succeeded, nil),
			dv(tenant, "w1", "a", cdiv1.CloneInProgress, nil),
			dv(naming.GoldenNamespace, golden, "a", cdiv1.Succeeded, nil),
			dv(tenant, "w1", "a", cdiv1.Succeeded, nil),
		},
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{
			pvc(tenant, "w1", "a", corev1.ClaimPending, nil),
			pvc("tenant-b", "out", "a", corev1.ClaimBound, nil),
			pvc(tenant, "w1", "a", corev1.ClaimBound, nil),
			pvc(tenant, "w0", "a", corev1.ClaimBound, nil),
		},
	}
	x := index(s)

	var dvs []*cdiv1.DataVolume
	for d := range x.DataVolumes() {
		dvs = append(dvs, d)
	}
	if want := []*cdiv1.DataVolume{&s.DataVolumes[0], &s.DataVolumes[3], &s.DataVolumes[4]}; !slices.Equal(dvs, want) {
		t.Errorf("DataVolumes yielded %v; want w2, the golden and the later w1, in the State's order, without tenant-b's", names(dvs))
	}
	var pvcs []*corev1.PersistentVolumeClaim
	for p := range x.PersistentVolumeClaims() {
		pvcs = append(pvcs, p)
	}
	if want := []*corev1.PersistentVolumeClaim{&s.PersistentVolumeClaims[2], &s.PersistentVolumeClaims[3]}; !slices.Equal(pvcs, want) {
		t.Errorf("PersistentVolumeClaims yielded %d claims; want the later w1 (bound), then w0", len(pvcs))
	}

	n := 0
	for range x.DataVolumes() {
		n++
		break
	}
	for range x.PersistentVolumeClaims() {
		n++
		break
	}
	if n != 2 {
		t.Errorf("a loop that breaks ran %d times over both iterators, want once each", n)
	}

	unobserved := index(&state.State{Observed: state.StorageClass, DataVolumes: s.DataVolumes, PersistentVolumeClaims: s.PersistentVolumeClaims})
	for d := range unobserved.DataVolumes() {
		t.Errorf("DataVolume %s yielded though DataVolumes were not observed", d.Name)
	}
	for p := range unobserved.PersistentVolumeClaims() {
		t.Errorf("PVC %s yielded though PVCs were not observed", p.Name)
	}
}

func names(dvs []*cdiv1.DataVolume) []string {
	out := make([]string, len(dvs))
	for i, d := range dvs {
		out[i] = d.Namespace + "/" + d.Name + "(" + string(d.Status.Phase) + ")"
	}
	return out
}

// TestClonedListsAreTheCallers: ClonedDisks and ClonedClasses hand out
// copies, so that a caller sorting or editing its answer cannot change
// what the next caller (another goroutine's plan) is told.
func TestClonedListsAreTheCallers(t *testing.T) {
	x := index(&state.State{
		Observed: state.PersistentVolumeClaim,
		PersistentVolumeClaims: []corev1.PersistentVolumeClaim{
			pvc(tenant, "w1", "b", corev1.ClaimBound, annotated(pool, golden)),
			pvc(tenant, "w2", "a", corev1.ClaimBound, annotated(pool, golden)),
		},
	})
	if !x.HasCloned(tenant, pool, golden) || x.HasCloned(tenant, pool, "talos-worker-ce4c-v1.13.5") || x.HasCloned("tenant-b", pool, golden) {
		t.Error("HasCloned reports whether ClonedDisks lists a disk")
	}

	ds := x.ClonedDisks(tenant, pool, golden)
	ds[0] = stateindex.Disk{Name: "edited"}
	_ = append(ds[:1], stateindex.Disk{Name: "appended"})
	if again := x.ClonedDisks(tenant, pool, golden); len(again) != 2 || again[0].Name != "w1" || again[1].Name != "w2" {
		t.Errorf("editing the disks ClonedDisks returned changed the snapshot's: %+v", again)
	}

	cs := x.ClonedClasses(tenant, pool, golden)
	if !reflect.DeepEqual(cs, []string{"a", "b"}) {
		t.Fatalf("ClonedClasses = %v, want [a b]", cs)
	}
	cs[0] = "edited"
	_ = append(cs[:1], "appended")
	if again := x.ClonedClasses(tenant, pool, golden); !reflect.DeepEqual(again, []string{"a", "b"}) {
		t.Errorf("editing the classes ClonedClasses returned changed the snapshot's: %v", again)
	}
}
