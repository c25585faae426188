package invariants_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestValuesPathsAgree (invariant 9, SPEC sections 9 and 13): whatever a
// pool's values hold, as Flux hands them to Helm (decoded JSON, numbers
// float64), every path reads them alike: plan.DecodePool, plan.PoolFromObject
// of a KubernetesNodes holding them, and plan.PoolSpec decoded from their
// JSON and from their YAML give the same spec, and the plans of the four
// the same refusals and warnings.
func TestValuesPathsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		values := poolValues().Draw(t, "values")
		snap := state.NewSnapshot(&state.State{Observed: state.AllKinds})
		v := catalog.Default()
		v.Enabled = true
		cat := catalog.Compile(v)

		pools := map[string]plan.Pool{"DecodePool": plan.DecodePool("tenant-demo", "demo-md0", values)}
		obj, err := plan.PoolFromObject(map[string]any{"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind,
			"metadata": map[string]any{"namespace": "tenant-demo", "name": "demo-md0"}, "spec": values})
		if err != nil {
			t.Fatalf("a KubernetesNodes is not read: %v", err)
		}
		pools["PoolFromObject"] = obj
		doc, err := json.Marshal(values)
		if err != nil {
			t.Fatalf("values do not encode: %v", err)
		}
		var fromJSON, fromYAML plan.PoolSpec
		_ = json.Unmarshal(doc, &fromJSON) // its error is the refusals Plan reports
		pools["JSON"] = plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: fromJSON}
		text, err := yaml.Marshal(values)
		if err != nil {
			t.Fatalf("values do not print as YAML: %v", err)
		}
		_ = yaml.Unmarshal(text, &fromYAML)
		pools["YAML"] = plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: fromYAML}

		want, wantErr := plan.Plan(pools["DecodePool"], cat, snap)
		for path, p := range pools {
			if got := specView(p.Spec); !reflect.DeepEqual(got, specView(pools["DecodePool"].Spec)) {
				t.Fatalf("%s reads %+v, DecodePool %+v", path, got, specView(pools["DecodePool"].Spec))
			}
			res, err := plan.Plan(p, cat, snap)
			if !reflect.DeepEqual(refusals(err), refusals(wantErr)) || !reflect.DeepEqual(warnings(res.Warnings), warnings(want.Warnings)) {
				t.Fatalf("%s: refusals %v, warnings %v; DecodePool: %v, %v", path,
					refusals(err), warnings(res.Warnings), refusals(wantErr), warnings(want.Warnings))
			}
		}
	})
}

// specView is a spec's exported fields, what a caller sees of it.
func specView(s plan.PoolSpec) plan.PoolSpec {
	return plan.PoolSpec{Cluster: s.Cluster, DiskSize: s.DiskSize, StorageClass: s.StorageClass, OSImage: s.OSImage, Talos: s.Talos}
}

// poolValues draws pool values as Flux decodes them: the keys the planner
// reads, misspellings of them and injected keys, each absent or holding
// null, an empty value, a number, a boolean, a string, a map or a list.
func poolValues() *rapid.Generator[map[string]any] {
	scalar := rapid.SampledFrom([]any{nil, "", 0.0, false, true, 20.0, 21474836480.0, 1.5, "20Gi", "local", "v1.13.6", "abc", "20 Gi"})
	var value func(depth int, keys []string) *rapid.Generator[any]
	value = func(depth int, keys []string) *rapid.Generator[any] {
		if depth == 0 || len(keys) == 0 {
			return rapid.OneOf(scalar, rapid.SampledFrom([]any{map[string]any{}, []any{}, []any{"a"}}))
		}
		return rapid.OneOf(scalar, rapid.Custom(func(t *rapid.T) any {
			m := map[string]any{}
			for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom(keys), rapid.ID[string]).Draw(t, "keys") {
				m[k] = value(depth-1, keys).Draw(t, k)
			}
			return m
		}))
	}
	keys := []string{"schematicID", "version", "imageFactoryURL", "installerRepository", "schematicId", "_note", "builtin", "factory"}
	top := []string{"cluster", "diskSize", "storageClass", "osImage", "talos", "osimage", "storageClas", "_namespace", "minReplicas", "roles"}
	return rapid.Custom(func(t *rapid.T) map[string]any {
		m := map[string]any{"cluster": "demo"}
		for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom(top), rapid.ID[string]).Draw(t, "top") {
			m[k] = value(2, keys).Draw(t, k)
		}
		return m
	})
}
