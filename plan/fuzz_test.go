package plan_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// FuzzPlan plans arbitrary pool values against a full and an empty state:
// no panic, and every failure is a typed refusal with a known reason and a
// field.
func FuzzPlan(f *testing.F) {
	f.Add("demo-md0", "demo", "20Gi", "replicated", "", "", "", uint8(1))
	f.Add("demo-md0", "demo", "6144Mi", "", chartdefaults.SchematicID, chartdefaults.Version, "", uint8(1))
	f.Add("x", "", "-1", "local", "ABC", "v01.2.3", "ftp://x", uint8(3))
	f.Add("demo-md1", "demo", "1e3", "", "abc", "v1.2.3", "https://f.example/", uint8(2))
	f.Add("demo-", "demo", "", "", "", "", "", uint8(0))
	full := state.NewSnapshot(fullState())
	cat := enabledCatalog()
	f.Fuzz(func(t *testing.T, name, cluster, diskSize, class, id, version, url string, mode uint8) {
		p := plan.Pool{Namespace: tenantNS, Name: name, Spec: plan.DefaultPoolSpec(cluster)}
		p.Spec.DiskSize, p.Spec.StorageClass = diskSize, class
		switch mode % 4 {
		case 1:
			p.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
		case 2:
			p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{Flavor: catalog.Flavor{SchematicID: id, Version: version}, ImageFactoryURL: url}}
		case 3:
			p.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}, Factory: &plan.Factory{}}
		}
		for _, snap := range []*state.Snapshot{full, nil} {
			res, err := plan.Plan(p, cat, snap)
			checkTyped(t, res, err)
		}
	})
}

// FuzzDecodePool feeds arbitrary YAML as pool values, as adapters/helm's
// FuzzPoolValues did for its decoder: reading them never panics, every
// path (DecodePool, PoolFromObject, PoolSpec's UnmarshalJSON from JSON and
// from YAML) reads the same spec with the same findings, every refusal is
// typed with a refusal's reason and a field, and every warning a warning's
// reason (or InvalidQuantity, or a refusal's reason the HTTP path warns,
// fixtures.WarnsOnHTTPPath) and a field. The
// seed corpus is testdata/fuzz/FuzzDecodePool.
func FuzzDecodePool(f *testing.F) {
	f.Add([]byte("cluster: demo"))
	f.Add([]byte("cluster: demo\nosImage: {builtin: {version: 1.13}}"))
	f.Add([]byte("cluster: demo\ndiskSize: 21474836480\nosimage: {}\n_namespace: {etcd: x}"))
	snap := state.NewSnapshot(fullState())
	cat := enabledCatalog()
	f.Fuzz(func(t *testing.T, data []byte) {
		var values map[string]any
		if yaml.Unmarshal(data, &values) != nil {
			return
		}
		pools := map[string]plan.Pool{viaDecodePool: plan.DecodePool(tenantNS, "demo-md0", values)}
		fromObject, err := plan.PoolFromObject(map[string]any{"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind,
			"metadata": map[string]any{"namespace": tenantNS, "name": "demo-md0"}, "spec": values})
		if err != nil {
			t.Fatalf("a KubernetesNodes is not read: %v", err)
		}
		pools[viaPoolFromObject] = fromObject
		// A spec that starts as the defaults: an empty or null document
		// sets nothing through sigs.k8s.io/yaml (TestPoolSpecFromEmptyYAML).
		fromYAML, fromJSON := plan.DefaultPoolSpec(""), plan.PoolSpec{}
		yamlErr := yaml.Unmarshal(data, &fromYAML)
		pools[viaYAML] = plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: fromYAML}
		doc, err := json.Marshal(values)
		if err != nil {
			t.Fatalf("values YAML decoded do not encode as JSON: %v", err)
		}
		jsonErr := json.Unmarshal(doc, &fromJSON)
		pools[viaJSON] = plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: fromJSON}
		for _, decodeErr := range []error{yamlErr, jsonErr} {
			if decodeErr != nil {
				checkTyped(t, plan.Result{Outcome: plan.Refused}, decodeErr)
			}
		}

		first, firstErr := plan.Plan(pools[viaDecodePool], cat, snap)
		checkTyped(t, first, firstErr)
		img := pools[viaDecodePool].Spec.OSImage
		clone := img != nil && img.Builtin != nil && img.Factory == nil
		for _, w := range first.Warnings {
			if !fixtures.IsWarningReason(w.Reason) && w.Reason != guard.InvalidQuantity && !(fixtures.WarnsOnHTTPPath(w.Reason, w.Field) && !clone) || w.Field == "" {
				t.Fatalf("warning without a warning's reason or a field: %#v", w)
			}
		}
		if _, err := json.Marshal(first); err != nil {
			t.Fatalf("the result is no JSON: %v", err)
		}
		for _, path := range paths[1:] {
			if got := exported(pools[path].Spec); !reflect.DeepEqual(got, exported(pools[viaDecodePool].Spec)) {
				t.Fatalf("%s reads %+v, %s %+v", path, got, viaDecodePool, exported(pools[viaDecodePool].Spec))
			}
			res, err := plan.Plan(pools[path], cat, snap)
			if !reflect.DeepEqual(refusalsOf(err), refusalsOf(firstErr)) || !reflect.DeepEqual(warningsOf(res.Warnings), warningsOf(first.Warnings)) {
				t.Fatalf("%s finds %v %v, %s %v %v", path, err, res.Warnings, viaDecodePool, firstErr, first.Warnings)
			}
		}
	})
}

// checkTyped fails unless a plan is planned with no error or refused with
// its refusals as the error, each with a refusal's reason and a field.
func checkTyped(t *testing.T, res plan.Result, err error) {
	t.Helper()
	if (err == nil) != (res.Outcome == plan.Planned) {
		t.Fatalf("outcome %q with error %v", res.Outcome, err)
	}
	if err == nil {
		return
	}
	rs := fixtures.Refusals(err)
	if len(rs) == 0 || res.Refusals != nil && !slices.Equal(rs, res.Refusals) {
		t.Fatalf("untyped failure: %v", err)
	}
	for _, r := range rs {
		if !fixtures.IsRefusalReason(r.Reason) || r.Field == "" {
			t.Fatalf("refusal without a known reason or a field: %#v", r)
		}
	}
}
