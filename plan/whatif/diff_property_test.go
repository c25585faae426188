package whatif_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// world is a drawn fleet: pools as their values, the catalog before a
// change and another one, and the cluster, all of one vocabulary.
type world struct {
	pools         []whatif.PoolValues
	before, after catalog.Values
	state         *state.State
}

func drawWorld(t *rapid.T) world {
	v := plantest.Vocabularies().Draw(t, "vocabulary")
	var w world
	w.pools = rapid.SliceOfNDistinct(v.PoolValues(), 1, 4, func(p whatif.PoolValues) [2]string { return [2]string{p.Namespace, p.Name} }).Draw(t, "pools")
	decoded := make([]plan.Pool, len(w.pools))
	for i, p := range w.pools {
		decoded[i] = plan.DecodePool(p.Namespace, p.Name, p.Spec)
	}
	w.before = v.CatalogValues().Draw(t, "catalogBefore")
	w.after = v.CatalogValues().Draw(t, "catalogAfter")
	w.state = v.State(decoded, w.before, plantest.Options{}).Draw(t, "state")
	return w
}

// platform is a platform's values as Cozystack's defaults render them.
func platform(t interface{ Fatal(...any) }) *whatif.Platform {
	p, err := whatif.NewPlatform(map[string]any{"_cluster": map[string]any{"ephemeral-storage-allocation-ratio": "40"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func diskJSON(t *rapid.T, s *whatif.Side) string {
	data, err := json.Marshal(s.Disk)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The byte-identity promise across catalogs: a catalog change re-images no
// pool. A pool planned on both sides keeps its disk and its
// KubevirtMachineTemplate's name, and a pool without osImage (or with
// osImage.factory), which reads no catalog, plans the same on both sides.
func TestCatalogChangeRollsNoPool(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawWorld(t)
		rep, err := whatif.Diff(whatif.Input{Pools: w.pools, Catalog: catalog.Compile(w.before), Snapshot: state.NewSnapshot(w.state), Platform: platform(t)},
			whatif.Change{Catalog: catalog.Compile(w.after)})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Pools {
			b, a := p.Before, p.After
			if b.Outcome == plan.Planned && a.Outcome == plan.Planned {
				if p.Rolls || b.Template != a.Template || diskJSON(t, b) != diskJSON(t, a) {
					t.Fatalf("%s/%s rolls (%t) across a catalog change: template %+v → %+v\n%s\n%s", p.Namespace, p.Name, p.Rolls, b.Template, a.Template, diskJSON(t, b), diskJSON(t, a))
				}
			}
			if spec := plan.DecodePool(p.Namespace, p.Name, specOf(w.pools, p)).Spec; spec.OSImage == nil || spec.OSImage.Builtin == nil {
				if b.Outcome != a.Outcome || !reflect.DeepEqual(b.Refusals, a.Refusals) {
					t.Fatalf("%s/%s reads no catalog, but plans %s before and %s after", p.Namespace, p.Name, b.Outcome, a.Outcome)
				}
			}
		}
	})
}

func specOf(pools []whatif.PoolValues, p whatif.PoolDiff) any {
	for _, v := range pools {
		if v.Namespace == p.Namespace && v.Name == p.Name {
			return v.Spec
		}
	}
	return nil
}

// No change, no roll: planning the same pools twice rolls nothing, and no
// step rolls a pool.
func TestNoChangeRollsNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawWorld(t)
		rep, err := whatif.Diff(whatif.Input{Pools: w.pools, Catalog: catalog.Compile(w.before), Snapshot: state.NewSnapshot(w.state), Platform: platform(t)}, whatif.Change{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Pools {
			if p.Rolls {
				t.Fatalf("%s/%s rolls without a change", p.Namespace, p.Name)
			}
		}
		for _, s := range rep.Steps {
			if s.Action == whatif.RollPool {
				t.Fatalf("step %v without a change", s)
			}
		}
		if tr := rep.Transfer; tr.HTTPBytes != nil && *tr.HTTPBytes != 0 || tr.CloneBytes != nil && *tr.CloneBytes != 0 {
			t.Fatalf("a transfer without a change: %+v", rep.Transfer)
		}
	})
}

// Diff changes none of its inputs, whatever its change.
func TestDiffLeavesItsInputs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawWorld(t)
		pools := make([]whatif.PoolValues, len(w.pools))
		for i, p := range w.pools {
			pools[i] = whatif.PoolValues{Namespace: p.Namespace, Name: p.Name, Spec: copyValues(p.Spec)}
		}
		st := plantest.CopyState(w.state)
		defaults := []whatif.ChartDefault{{Key: "talos.version", Value: "v1.14.0"}, {Key: "resources.cpu", Value: "2"}}
		if _, err := whatif.Diff(whatif.Input{Pools: w.pools, Catalog: catalog.Compile(w.before), Snapshot: state.NewSnapshot(w.state)},
			whatif.Change{Catalog: catalog.Compile(w.after), Defaults: defaults}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pools, w.pools) {
			t.Fatalf("Diff changed the pools' values")
		}
		if !reflect.DeepEqual(st, w.state) {
			t.Fatalf("Diff changed the state")
		}
	})
}

// copyValues copies the maps and lists of values.
func copyValues(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyValues(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValues(e)
		}
		return out
	}
	return v
}
