package catalog

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The model's vocabulary. Each value maps to what it means, written out here
// rather than computed by the code under test: factories to a canonical
// source, sizes to GiB.
var (
	smIDs       = []string{"aaa", "bbb", "ccc", "ddd"}
	smFactories = map[string]string{
		"":                               "official", // the catalog's
		"https://factory.talos.dev":      "official",
		"https://FACTORY.talos.dev:443/": "official",
		"https://mirror.example":         "mirror",
	}
	smSizes   = map[string]int{"": 6, "6Gi": 6, "6144Mi": 6, "7Gi": 7}
	smClasses = []string{"", "a", "b"}
	smTenants = []string{"tenant-a", "tenant-b"}
)

type smEntry struct{ id, factory, storage, class string }

// smGolden is a golden the cluster holds, as the model knows it.
type smGolden struct {
	source   string // canonical factory
	sizeGi   int
	class    string // the class its spec names
	bound    string // the class its PVC is bound on
	dv       *cdiv1.DataVolume
	pvc      corev1.PersistentVolumeClaim
	endpoint bool // its PVC records the import URL
}

// smDisk is a worker disk cloning a golden, known in one of four ways.
type smDisk struct {
	namespace, name, golden string
	way                     int // 0 DataVolume+PVC annotated, 1 DataVolume source.pvc, 2 PVC annotated, 3 PVC dataSourceRef
}

type catalogMachine struct {
	enabled     bool
	globalClass string
	entries     []smEntry
	goldens     map[string]*smGolden // by golden name
	disks       []smDisk
	def         string
	// unknownProvisioner: class "b"'s StorageProfile has no claim property
	// set (CDI does not know its provisioner), so CDI renders no golden on
	// it.
	unknownProvisioner bool
	serial             int
}

func (m *catalogMachine) values() Values {
	v := Values{Enabled: m.enabled, ImageFactoryURL: "https://factory.talos.dev", StorageClass: m.globalClass, Storage: "6Gi", Images: []Image{}}
	for _, e := range m.entries {
		v.Images = append(v.Images, Image{Flavor: Flavor{SchematicID: e.id, Version: v1136}, ImageFactoryURL: e.factory, Storage: e.storage, StorageClass: e.class})
	}
	return v
}

func smName(id string) string { return naming.GoldenPrefix + id + "-" + v1136 }

func (m *catalogMachine) snapshot() *state.Snapshot {
	s := &state.State{Observed: state.AllKinds}
	for _, c := range []string{"a", "b"} {
		sc := fixtures.StorageClass(c)
		if c == m.def {
			sc.Default()
		}
		s.StorageClasses = append(s.StorageClasses, *sc.Obj())
		sp := renders(c)
		if c == "b" && m.unknownProvisioner {
			sp.Status.ClaimPropertySets = nil
		}
		s.StorageProfiles = append(s.StorageProfiles, *sp)
	}
	s.CDIConfigs = []cdiv1.CDIConfig{*cdiConfig("a", "b")}
	for _, name := range sortedKeys(m.goldens) {
		g := m.goldens[name]
		if g.dv != nil {
			s.DataVolumes = append(s.DataVolumes, *g.dv)
		}
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, g.pvc)
	}
	for _, d := range m.disks {
		pool := naming.PoolCAPIName(d.name)
		dv, pvc := fixtures.DataVolume(d.namespace, d.name), fixtures.PVC(d.namespace, d.name)
		switch d.way {
		case 0:
			s.DataVolumes = append(s.DataVolumes, *dv.WorkerOf(pool, d.golden).Obj())
			s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, *pvc.WorkerOf(pool, d.golden).Obj())
		case 1:
			s.DataVolumes = append(s.DataVolumes, *dv.Clones(d.golden).Obj())
		case 2:
			s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, *pvc.WorkerOf(pool, d.golden).Obj())
		case 3:
			s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, *pvc.DataSourceRef(naming.GoldenNamespace, d.golden).Obj())
		}
	}
	return state.NewSnapshot(s)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// expectedRefusals is the model's verdict: the CatalogEntryImmutable fields
// of the goldens that exist, and DiskUnrenderable for an entry whose golden
// does not exist yet and whose class (or the default) CDI renders none on.
func (m *catalogMachine) expectedRefusals() []fixtures.Finding {
	var out []fixtures.Finding
	if !m.enabled {
		return out
	}
	for i, e := range m.entries {
		p := fmt.Sprintf("images[%d].", i)
		g, ok := m.goldens[smName(e.id)]
		if !ok {
			if m.unknownProvisioner && or(or(e.class, m.globalClass), m.def) == "b" {
				out = append(out, fixtures.Finding{Reason: guard.DiskUnrenderable, Field: p + "storageClass"})
			}
			continue
		}
		if (g.dv != nil || g.endpoint) && smFactories[e.factory] != g.source {
			out = append(out, fixtures.Finding{Reason: guard.CatalogEntryImmutable, Field: p + "imageFactoryURL"})
		}
		if g.dv != nil && smSizes[e.storage] != g.sizeGi {
			out = append(out, fixtures.Finding{Reason: guard.CatalogEntryImmutable, Field: p + "storage"})
		}
		class := e.class
		if class == "" {
			class = m.globalClass
		}
		// Both sides bind where they name, else where the golden is bound.
		if or(class, g.bound) != or(g.class, g.bound) {
			out = append(out, fixtures.Finding{Reason: guard.CatalogEntryImmutable, Field: p + "storageClass"})
		}
	}
	return out
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (m *catalogMachine) expectedUnmanaged() []string {
	out := []string{}
	for _, name := range sortedKeys(m.goldens) {
		managed := false
		for _, e := range m.entries {
			managed = managed || (m.enabled && smName(e.id) == name)
		}
		if !managed {
			out = append(out, name)
		}
	}
	return out
}

func (m *catalogMachine) consumersOf(golden string) int {
	n := 0
	for _, d := range m.disks {
		if d.golden == golden {
			n++
		}
	}
	return n
}

// check holds after every step.
func (m *catalogMachine) check(t *rapid.T) {
	snap := m.snapshot()
	cat := Compile(m.values())
	res, err := Render(cat, snap)
	if got, want := fixtures.Refused(err), m.expectedRefusals(); !slices.Equal(got, want) {
		t.Fatalf("refusals %v, want %v: every edit of an existing golden is refused, a new golden CDI cannot render is refused, and nothing else", got, want)
	}
	if len(res.Warnings) > 0 {
		t.Fatalf("warnings %v on a fully observed cluster", res.Warnings)
	}
	unmanaged := m.expectedUnmanaged()
	if !slices.Equal(res.Unmanaged, unmanaged) {
		t.Fatalf("unmanaged %v, want %v: dropped entries show up as unmanaged", res.Unmanaged, unmanaged)
	}
	rep := Prune(cat, snap, readPools)
	var pruned []string
	for _, name := range rep.SafeToDelete {
		if n := m.consumersOf(name); n > 0 {
			t.Fatalf("golden %s is reported safe to delete while %d disks clone it", name, n)
		}
		pruned = append(pruned, name)
	}
	for _, k := range rep.Kept {
		if got, want := len(k.Consumers), m.consumersOf(k.Name); got != want || want == 0 {
			t.Fatalf("kept %s with %d consumers, want %d (one per disk, never none)", k.Name, got, want)
		}
		pruned = append(pruned, k.Name)
	}
	sort.Strings(pruned)
	if !slices.Equal(pruned, unmanaged) && !(len(pruned) == 0 && len(unmanaged) == 0) {
		t.Fatalf("prune covers %v, want every unmanaged golden %v", pruned, unmanaged)
	}
	if err == nil {
		m.checkReproduced(t, res.Goldens)
	}
}

// checkReproduced: where an unrefused entry's golden exists, applying the
// render patches nothing.
func (m *catalogMachine) checkReproduced(t *rapid.T, rendered []cdiv1.DataVolume) {
	for _, dv := range rendered {
		g, ok := m.goldens[dv.Name]
		switch {
		case !ok:
		case g.dv != nil:
			if !equality.Semantic.DeepEqual(dv.Spec, g.dv.Spec) {
				t.Fatalf("golden %s re-rendered as %+v, live %+v", dv.Name, dv.Spec, g.dv.Spec)
			}
		default:
			q := dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
			if q.Cmp(g.pvc.Spec.Resources.Requests[corev1.ResourceStorage]) != 0 || ptr.Deref(dv.Spec.Storage.StorageClassName, "") != g.bound {
				t.Fatalf("PVC-only golden %s rendered at %s on %v, not its PVC's size and class", dv.Name, q.String(), dv.Spec.Storage.StorageClassName)
			}
		}
	}
}

func (m *catalogMachine) add(t *rapid.T) {
	var free []string
	for _, id := range smIDs {
		if !slices.ContainsFunc(m.entries, func(e smEntry) bool { return e.id == id }) {
			free = append(free, id)
		}
	}
	if len(free) == 0 {
		t.Skip("every flavor has an entry")
	}
	e := smEntry{
		id:      rapid.SampledFrom(free).Draw(t, "id"),
		factory: rapid.SampledFrom(sortedKeys(smFactories)).Draw(t, "factory"),
		storage: rapid.SampledFrom(sortedKeys(smSizes)).Draw(t, "storage"),
		class:   rapid.SampledFrom(smClasses).Draw(t, "class"),
	}
	at := rapid.IntRange(0, len(m.entries)).Draw(t, "at")
	m.entries = slices.Insert(m.entries, at, e)
}

func (m *catalogMachine) edit(t *rapid.T) {
	if len(m.entries) == 0 {
		t.Skip("no entry")
	}
	e := &m.entries[rapid.IntRange(0, len(m.entries)-1).Draw(t, "entry")]
	switch rapid.IntRange(0, 2).Draw(t, "field") {
	case 0:
		e.factory = rapid.SampledFrom(sortedKeys(smFactories)).Draw(t, "factory")
	case 1:
		e.storage = rapid.SampledFrom(sortedKeys(smSizes)).Draw(t, "storage")
	case 2:
		e.class = rapid.SampledFrom(smClasses).Draw(t, "class")
	}
}

func (m *catalogMachine) drop(t *rapid.T) {
	if len(m.entries) == 0 {
		t.Skip("no entry")
	}
	i := rapid.IntRange(0, len(m.entries)-1).Draw(t, "entry")
	m.entries = slices.Delete(m.entries, i, i+1)
}

// apply creates the goldens a successful render adds, as Helm and CDI would.
func (m *catalogMachine) apply(t *rapid.T) {
	res, err := Render(Compile(m.values()), m.snapshot())
	if err != nil {
		t.Skip("refused: nothing is applied")
	}
	for i := range res.Goldens {
		dv := res.Goldens[i]
		if _, exists := m.goldens[dv.Name]; exists {
			continue
		}
		e := m.entries[slices.IndexFunc(m.entries, func(e smEntry) bool { return smName(e.id) == dv.Name })]
		class := or(e.class, m.globalClass)
		g := &smGolden{source: smFactories[e.factory], sizeGi: smSizes[e.storage], class: class, bound: or(class, m.def), dv: &dv,
			endpoint: rapid.Bool().Draw(t, "endpoint")}
		dv.Status.Phase = cdiv1.Succeeded
		// CDI may inflate the PVC's request for filesystem overhead.
		req := dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
		req.Add(resource.MustParse("300Mi"))
		g.pvc = corev1.PersistentVolumeClaim{
			ObjectMeta: *dv.ObjectMeta.DeepCopy(),
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To(g.bound),
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: req}}},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: req}},
		}
		if g.endpoint {
			g.pvc.Annotations[naming.ImportEndpointAnnotation] = dv.Spec.Source.HTTP.URL
		}
		m.goldens[dv.Name] = g
	}
}

// collect is CDI garbage-collecting a completed golden DataVolume.
func (m *catalogMachine) collect(t *rapid.T) {
	var withDV []string
	for _, name := range sortedKeys(m.goldens) {
		if m.goldens[name].dv != nil {
			withDV = append(withDV, name)
		}
	}
	if len(withDV) == 0 {
		t.Skip("no golden DataVolume")
	}
	m.goldens[rapid.SampledFrom(withDV).Draw(t, "golden")].dv = nil
}

func (m *catalogMachine) clone(t *rapid.T) {
	if len(m.goldens) == 0 {
		t.Skip("no golden")
	}
	m.serial++
	m.disks = append(m.disks, smDisk{
		namespace: rapid.SampledFrom(smTenants).Draw(t, "namespace"),
		name:      fmt.Sprintf("disk-%d", m.serial),
		golden:    rapid.SampledFrom(sortedKeys(m.goldens)).Draw(t, "golden"),
		way:       rapid.IntRange(0, 3).Draw(t, "way"),
	})
}

func (m *catalogMachine) release(t *rapid.T) {
	if len(m.disks) == 0 {
		t.Skip("no disk")
	}
	i := rapid.IntRange(0, len(m.disks)-1).Draw(t, "disk")
	m.disks = slices.Delete(m.disks, i, i+1)
}

func TestCatalogStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &catalogMachine{
			enabled:     true,
			globalClass: rapid.SampledFrom(smClasses).Draw(t, "globalClass"),
			goldens:     map[string]*smGolden{},
			def:         "a",
		}
		t.Repeat(map[string]func(*rapid.T){
			"add":     m.add,
			"edit":    m.edit,
			"drop":    m.drop,
			"apply":   m.apply,
			"collect": m.collect,
			"clone":   m.clone,
			"release": m.release,
			"toggle":  func(*rapid.T) { m.enabled = !m.enabled },
			"moveDefault": func(*rapid.T) {
				m.def = map[string]string{"a": "b", "b": "a"}[m.def]
			},
			"unknownProvisioner": func(*rapid.T) { m.unknownProvisioner = !m.unknownProvisioner },
			"":                   m.check,
		})
	})
}
