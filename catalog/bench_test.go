package catalog_test

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// BenchmarkRender renders a catalog of 1,000 entries against a cluster where
// every golden exists (each compared for CatalogEntryImmutable and
// reproduced as it is).
func BenchmarkRender(b *testing.B) {
	snap := state.NewSnapshot(fleet.State(fleet.Large))
	values := fleet.Catalog(fleet.Large)
	b.ReportAllocs()
	for b.Loop() {
		res, err := catalog.Render(catalog.Compile(values), snap)
		if err != nil || len(res.Goldens) != fleet.Large.Goldens {
			b.Fatal(err, len(res.Goldens))
		}
	}
}

// BenchmarkConsumers indexes who clones what over 100,000 PVCs, 10,000
// KubevirtMachineTemplates and 10,000 pools, each declared twice (its
// KubernetesNodes and its HelmRelease), and asks for one golden's
// consumers.
func BenchmarkConsumers(b *testing.B) {
	size := fleet.Large
	size.Templates = 10000
	size.Pools = 10000
	snap := state.NewSnapshot(fleet.State(size))
	f := fleet.Flavor(0)
	golden := "talos-worker-" + f.SchematicID + "-" + f.Version
	b.Run("index+query", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if len(catalog.NewConsumerIndex(snap, plan.PoolGolden).Of(golden)) == 0 {
				b.Fatal("no consumers")
			}
		}
	})
	x := catalog.NewConsumerIndex(snap, plan.PoolGolden)
	if n := x.Radius(golden).Templates; n != size.Templates/size.Namespaces {
		b.Fatalf("%d templates clone %s, want %d", n, golden, size.Templates/size.Namespaces)
	}
	pools := 0
	for _, c := range x.Of(golden) {
		if c.Kind == catalog.KindKubernetesNodes || c.Kind == catalog.KindHelmRelease {
			pools++
		}
	}
	if want := 2 * size.Pools / size.Namespaces; pools != want {
		b.Fatalf("%d pool objects clone %s, want %d", pools, golden, want)
	}
	b.Run("query", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if len(x.Of(golden)) == 0 {
				b.Fatal("no consumers")
			}
		}
	})
}
