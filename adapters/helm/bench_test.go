package helm_test

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// BenchmarkDiskText renders the disk-system entry's chart text.
func BenchmarkDiskText(b *testing.B) {
	snap := state.NewSnapshot(fleet.State(fleet.Large))
	cat := catalog.Compile(fleet.Catalog(fleet.Large))
	clone := fleet.Pools(fleet.Large, 2)[1]
	http := plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")}
	for name, p := range map[string]plan.Pool{"http": http, "clone": clone} {
		res, err := plan.Plan(p, cat, snap)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := helm.DiskText(res, helm.ChartIndent); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
