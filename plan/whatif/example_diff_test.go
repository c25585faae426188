package whatif_test

import (
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// A Cozystack upgrade moves the chart's talos.version: the pool that
// imports over HTTP rolls onto the new URL; the one that clones the
// chart's flavor needs the new flavor's golden, which the catalog lacks,
// so its plan is refused until the entry is added and the golden imported.
func ExampleDiff() {
	pools := []whatif.PoolValues{
		{Namespace: "tenant-demo", Name: "demo-md0", Spec: map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}}},
		{Namespace: "tenant-demo", Name: "demo-md1", Spec: map[string]any{"cluster": "demo"}},
	}
	cat := catalog.Compile(catalog.Values{Enabled: true, ImageFactoryURL: "https://factory.talos.dev", StorageClass: "replicated", Storage: "6Gi",
		Images: catalog.Default().Images})
	rep, err := whatif.Diff(whatif.Input{Pools: pools, Catalog: cat},
		whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: "v1.13.7"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range rep.Pools {
		golden := "no golden"
		if p.After.NeededGolden != "" {
			golden = "golden " + string(p.After.GoldenState)
		}
		fmt.Printf("%s rolls: %t, after: %s, %s\n", p.Name, p.Rolls, p.After.Outcome, golden)
	}
	for _, s := range rep.Steps {
		fmt.Println(s.Action, s.Target[:min(len(s.Target), 24)])
	}
	fmt.Println("refused:", rep.Refused())
	// Output:
	// demo-md0 rolls: true, after: refused, golden not-in-catalog
	// demo-md1 rolls: true, after: planned, no golden
	// add-catalog-entry talos-worker-ce4c980550d
	// roll-pool tenant-demo/demo-md1
	// wait-for-golden talos-worker-ce4c980550d
	// roll-pool tenant-demo/demo-md0
	// refused: true
}
