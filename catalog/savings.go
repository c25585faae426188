package catalog

import (
	"math"
	"sort"

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
			workers[p.Golden] = addInt(workers[p.Golden], p.Replicas)
		}
	}
	rep := SavingsReport{ByGolden: []GoldenSavings{}}
	for g, n := range workers {
		avoided := n - 1
		gs := GoldenSavings{Golden: g, Workers: n, ImportsAvoided: avoided, BytesAvoided: mulInt64(int64(avoided), size)}
		rep.ByGolden = append(rep.ByGolden, gs)
		rep.Workers = addInt(rep.Workers, n)
		rep.Imports++
		rep.ImportsAvoided = addInt(rep.ImportsAvoided, avoided)
		rep.BytesAvoided = addInt64(rep.BytesAvoided, gs.BytesAvoided)
	}
	sort.Slice(rep.ByGolden, func(i, j int) bool { return rep.ByGolden[i].Golden < rep.ByGolden[j].Golden })
	return rep
}

// Counts saturate: absurd replica counts must not wrap to negative savings.
func addInt(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func addInt64(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulInt64(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
