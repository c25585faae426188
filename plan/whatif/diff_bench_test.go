package whatif_test

import (
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"fmt"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// BenchmarkDiff compares a fleet's plans before and after a change against
// a large cluster (1,000 goldens, 50 classes, 100,000 worker PVCs), the
// state indexed and the catalogs compiled once, the platform's values given
// so that every pool's template is rendered and hashed on both sides. Half
// the pools clone their namespace's flavor, half import over HTTP from the
// chart's talos.*: a talos.version bump rolls the HTTP half; retiring a
// tenth of the catalog rolls nothing and refuses or warns the pools of
// those flavors.
func BenchmarkDiff(b *testing.B) {
	snap := state.NewSnapshot(fleetState(fleet.Large))
	values := fleet.Catalog(fleet.Large)
	before := catalog.Compile(values)
	retired := values
	retired.Images = values.Images[len(values.Images)/10:]
	after := catalog.Compile(retired)
	platform, err := whatif.NewPlatform(map[string]any{"_cluster": map[string]any{"ephemeral-storage-allocation-ratio": "40"}})
	if err != nil {
		b.Fatal(err)
	}
	changes := []struct {
		name string
		ch   whatif.Change
	}{
		{"default", whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: "v1.13.7"}}}},
		{"catalog", whatif.Change{Catalog: after}},
	}
	for _, n := range []int{1000, 10000} {
		pools := diffFleet(n)
		for _, c := range changes {
			b.Run(fmt.Sprintf("pools=%d/%s", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := whatif.Diff(whatif.Input{Pools: pools, Catalog: before, Snapshot: snap, Platform: platform}, c.ch); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// diffFleet is fleet.Pools as values, every other pool over HTTP.
func diffFleet(n int) []whatif.PoolValues {
	pools := fleet.Pools(fleet.Large, n)
	out := make([]whatif.PoolValues, n)
	for i, p := range pools {
		if i%2 == 1 {
			p.Spec.OSImage = nil
		}
		out[i] = plantest.Values(p)
	}
	return out
}

// fleetState is fleet.State with CDI's config, without which CDI renders
// no disk.
func fleetState(s fleet.Size) *state.State {
	st := fleet.State(s)
	if len(st.CDIConfigs) == 0 {
		st.CDIConfigs = []cdiv1.CDIConfig{*fixtures.CDIConfig(fixtures.DefaultOverhead)}
	}
	return st
}
