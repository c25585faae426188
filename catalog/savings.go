package catalog

import (
	"sort"

	"github.com/cozystack/kubernetes-worker-image/internal/saturate"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PoolWorkers is a planned pool's golden and how many workers it runs. A
// pool on the HTTP path has no golden and saves nothing.
type PoolWorkers struct {
	// Golden is the golden the pool clones ("" on the HTTP path).
	Golden string `json:"golden"`
	// Replicas is the pool's worker count (a negative count is none).
	Replicas int `json:"replicas"`
}

// GoldenSavings is what one golden saves.
type GoldenSavings struct {
	Golden string `json:"golden"`
	// Workers clone the golden.
	Workers int `json:"workers"`
	// ImportsAvoided is Workers less the golden's own import.
	ImportsAvoided int   `json:"importsAvoided"`
	BytesAvoided   int64 `json:"bytesAvoided"`
}

// SavingsReport is how many HTTP imports, and bytes fetched from the Image
// Factory, the catalog avoids for a fleet.
type SavingsReport struct {
	// Workers is the number of workers that clone a golden.
	Workers int `json:"workers"`
	// Imports is what the fleet still imports: one per golden.
	Imports        int   `json:"imports"`
	ImportsAvoided int   `json:"importsAvoided"`
	BytesAvoided   int64 `json:"bytesAvoided"`
	// ByGolden breaks the figures down per golden, by name.
	ByGolden []GoldenSavings `json:"byGolden"`
}

// Savings counts what cloning saves: without the catalog every worker
// imports its image over HTTP; with it, each golden imports once and every
// worker cloning it imports nothing. So a golden cloned by n workers avoids
// n-1 imports of imageSize each (the first import of each flavor is still
// paid). For example 20 workers on one flavor of the ~4.15 GiB Talos raw
// image (resource.MustParse("4.15Gi")) avoid 19 imports, about 79 GiB. A
// negative image size counts as zero; byte counts saturate rather than
// overflow.
func Savings(pools []PoolWorkers, imageSize resource.Quantity) SavingsReport {
	size := max(imageSize.Value(), 0)
	workers := map[string]int{}
	for _, p := range pools {
		if p.Golden != "" && p.Replicas > 0 {
			workers[p.Golden] = saturate.Add(workers[p.Golden], p.Replicas)
		}
	}
	rep := SavingsReport{ByGolden: []GoldenSavings{}}
	for g, n := range workers {
		avoided := n - 1
		gs := GoldenSavings{Golden: g, Workers: n, ImportsAvoided: avoided, BytesAvoided: saturate.Mul(int64(avoided), size)}
		rep.ByGolden = append(rep.ByGolden, gs)
		rep.Workers = saturate.Add(rep.Workers, n)
		rep.Imports++
		rep.ImportsAvoided = saturate.Add(rep.ImportsAvoided, avoided)
		rep.BytesAvoided = saturate.Add(rep.BytesAvoided, gs.BytesAvoided)
	}
	sort.Slice(rep.ByGolden, func(i, j int) bool { return rep.ByGolden[i].Golden < rep.ByGolden[j].Golden })
	return rep
}
