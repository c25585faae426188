package invariants_test

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestCatalogRoundTrip (invariant 8): rendering an enabled catalog and
// reading it back from the rendered goldens, after a trip through YAML as
// kubectl would print them, gives the same catalog: the same flavors, each
// with the same source URL, the same size as a quantity and the same class.
// Rendering the catalog read back against those goldens refuses nothing and
// reproduces them, so applying it patches nothing. A disabled catalog
// renders nothing, and nothing reads back. The cluster has no golden yet
// and renders one on any of its classes (renderingCluster): catalog.Render
// refuses an entry whose golden CDI could never render.
func TestCatalogRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := plantest.Vocabularies().Draw(t, "vocabulary")
		values := v.ValidCatalogValues().Draw(t, "catalog")
		cat := catalog.Compile(values)
		if err := cat.Refusals().Err(); err != nil {
			t.Fatalf("valid catalog values refused: %v", err)
		}
		empty := renderingCluster(v)
		res, err := catalog.Render(cat, state.NewSnapshot(empty))
		if err != nil {
			t.Fatalf("render refused: %v", err)
		}

		cluster := renderingCluster(v)
		for _, g := range res.Goldens {
			text, err := yaml.Marshal(g)
			if err != nil {
				t.Fatalf("golden %s does not print: %v", g.Name, err)
			}
			var back cdiv1.DataVolume
			if err := yaml.UnmarshalStrict(text, &back); err != nil {
				t.Fatalf("golden %s does not read back:\n%s\n%v", g.Name, text, err)
			}
			cluster.DataVolumes = append(cluster.DataVolumes, back)
		}
		snap := state.NewSnapshot(cluster)
		readBack, warnings := catalog.ReadBack(snap)
		if len(warnings) > 0 {
			t.Fatalf("read-back warns on a fully observed cluster: %v", warnings)
		}
		again := catalog.Compile(readBack)
		if err := again.Refusals().Err(); err != nil {
			t.Fatalf("the catalog read back is refused: %v", err)
		}

		want := map[catalog.Flavor]catalog.Entry{}
		if values.Enabled {
			for e := range cat.Entries() {
				want[e.Flavor] = e
			}
		}
		if len(slices.Collect(again.Entries())) != len(want) {
			t.Fatalf("%d entries read back, want %d (enabled %v)", len(slices.Collect(again.Entries())), len(want), values.Enabled)
		}
		for got := range again.Entries() {
			e, ok := want[got.Flavor]
			switch {
			case !ok:
				t.Fatalf("read back %s, which the catalog does not hold", got.Flavor)
			case got.URL != e.URL:
				t.Fatalf("%s: URL %q read back as %q", got.Flavor, e.URL, got.URL)
			case got.Size.Cmp(e.Size) != 0:
				t.Fatalf("%s: size %s read back as %s", got.Flavor, e.Size.String(), got.Size.String())
			case got.StorageClass != e.StorageClass:
				t.Fatalf("%s: class %q read back as %q", got.Flavor, e.StorageClass, got.StorageClass)
			}
		}

		rerender, err := catalog.Render(again, snap)
		if err != nil {
			t.Fatalf("the catalog read back is an edit of its own goldens: %v", err)
		}
		if len(rerender.Unmanaged) > 0 {
			t.Fatalf("goldens left unmanaged by the catalog read back: %v", rerender.Unmanaged)
		}
		byName := map[string]cdiv1.DataVolume{}
		for _, g := range cluster.DataVolumes {
			byName[g.Name] = g
		}
		for _, g := range rerender.Goldens {
			if live, ok := byName[g.Name]; !ok || !equality.Semantic.DeepEqual(g.Spec, live.Spec) {
				t.Fatalf("golden %s renders another spec than it has:\n%+v\n%+v", g.Name, g.Spec, live.Spec)
			}
		}
	})
}
