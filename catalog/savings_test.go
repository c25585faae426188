package catalog

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestSavings(t *testing.T) {
	gi := resource.MustParse("1Gi")
	cases := map[string]struct {
		reason string
		pools  []PoolWorkers
		size   resource.Quantity
		want   SavingsReport
	}{
		"None": {
			reason: "no pool saves nothing",
			size:   gi,
			want:   SavingsReport{ByGolden: []GoldenSavings{}},
		},
		"OneWorker": {
			reason: "a single worker still pays its flavor's one import",
			pools:  []PoolWorkers{{Golden: goldenA, Replicas: 1}},
			size:   gi,
			want: SavingsReport{Workers: 1, Imports: 1, ByGolden: []GoldenSavings{
				{Golden: goldenA, Workers: 1},
			}},
		},
		"TwoWorkers": {
			reason: "neighbour of OneWorker: the second worker saves one import",
			pools:  []PoolWorkers{{Golden: goldenA, Replicas: 2}},
			size:   gi,
			want: SavingsReport{Workers: 2, Imports: 1, ImportsAvoided: 1, BytesAvoided: 1 << 30, ByGolden: []GoldenSavings{
				{Golden: goldenA, Workers: 2, ImportsAvoided: 1, BytesAvoided: 1 << 30},
			}},
		},
		"PoolsShareAFlavor": {
			reason: "pools of every tenant on one flavor share its one import; each flavor pays its own",
			pools: []PoolWorkers{
				{Golden: goldenB, Replicas: 3},
				{Golden: goldenA, Replicas: 10},
				{Golden: goldenA, Replicas: 10},
				{Golden: "", Replicas: 5},
				{Golden: goldenB, Replicas: 0},
				{Golden: goldenB, Replicas: -4},
			},
			size: gi,
			want: SavingsReport{Workers: 23, Imports: 2, ImportsAvoided: 21, BytesAvoided: 21 << 30, ByGolden: []GoldenSavings{
				{Golden: goldenA, Workers: 20, ImportsAvoided: 19, BytesAvoided: 19 << 30},
				{Golden: goldenB, Workers: 3, ImportsAvoided: 2, BytesAvoided: 2 << 30},
			}},
		},
		"Saturates": {
			reason: "absurd counts saturate instead of wrapping negative",
			pools:  []PoolWorkers{{Golden: goldenA, Replicas: math.MaxInt}, {Golden: goldenA, Replicas: math.MaxInt}},
			size:   gi,
			want: SavingsReport{Workers: math.MaxInt, Imports: 1, ImportsAvoided: math.MaxInt - 1, BytesAvoided: math.MaxInt64, ByGolden: []GoldenSavings{
				{Golden: goldenA, Workers: math.MaxInt, ImportsAvoided: math.MaxInt - 1, BytesAvoided: math.MaxInt64},
			}},
		},
		"NegativeSize": {
			reason: "a negative image size saves no bytes",
			pools:  []PoolWorkers{{Golden: goldenA, Replicas: 2}},
			size:   resource.MustParse("-1Gi"),
			want: SavingsReport{Workers: 2, Imports: 1, ImportsAvoided: 1, ByGolden: []GoldenSavings{
				{Golden: goldenA, Workers: 2, ImportsAvoided: 1},
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, Savings(tc.pools, tc.size), tc.reason)
		})
	}
}
