package computeplane

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// forwardable is the allowlist of forwarded fields written out again, as patterns of
// value paths ("gpus[].name"), so that the properties do not trust the
// package's own table. cluster is the module's.
var forwardable = map[string]bool{
	"cluster": true, "minReplicas": true, "maxReplicas": true, "instanceType": true,
	"diskSize": true, "storageClass": true, "roles": true, "roles[]": true,
	"resources": true, "resources.cpu": true, "resources.memory": true,
	"gpus": true, "gpus[]": true, "gpus[].name": true,
	"kubelet": true, "kubelet.systemReservedMemory": true, "kubelet.kubeReservedMemory": true,
	"kubelet.systemReservedCpu": true, "kubelet.kubeReservedCpu": true,
	"kubelet.evictionHardMemory": true, "kubelet.evictionSoftMemory": true,
}

// outsideAllowlist lists the value paths of v that are not forwardable, and
// every path that holds osImage.
func outsideAllowlist(v any, pattern string) []string {
	var bad []string
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			p := k
			if pattern != "" {
				p = pattern + "." + k
			}
			if !forwardable[p] || k == "osImage" {
				bad = append(bad, p)
			}
			bad = append(bad, outsideAllowlist(val, p)...)
		}
	case []any:
		for _, val := range x {
			p := pattern + "[]"
			if !forwardable[p] {
				bad = append(bad, p)
			}
			bad = append(bad, outsideAllowlist(val, p)...)
		}
	}
	return bad
}

// tenantGroup is a node group as a tenant might write it, and what Plan must
// make of it.
type tenantGroup struct {
	raw map[string]any
	// forwarded is the allowlisted part the release must receive, without
	// the cluster the module adds.
	forwarded map[string]any
	// dropped are the paths, relative to the group, that must be reported
	// once each.
	dropped []string
}

var notableExtras = []string{"osImage", "talos", "version", "images", "cluster", "gpu", "count", "foo", "nodeSelector", "kubernetesVersion"}

// extraKey draws a key that is not allowlisted under pattern.
func extraKey(pattern string) *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom(notableExtras),
		rapid.StringMatching(`[a-zA-Z_][a-zA-Z0-9_-]{0,11}`),
	).Filter(func(k string) bool {
		p := k
		if pattern != "" {
			p = pattern + "." + k
		}
		return !forwardable[p]
	})
}

// anyValue draws whatever YAML can hold, nested up to depth.
func anyValue(depth int) *rapid.Generator[any] {
	leaves := []*rapid.Generator[any]{
		rapid.Just[any](nil),
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.Int64(), func(n int64) any { return json.Number(strconv.FormatInt(n, 10)) }),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.Float64Range(-1e6, 1e6), func(f float64) any { return f }),
	}
	if depth == 0 {
		return rapid.OneOf(leaves...)
	}
	return rapid.OneOf(append(leaves,
		rapid.Map(rapid.SliceOfN(anyValue(depth-1), 0, 3), func(l []any) any { return l }),
		rapid.Map(rapid.MapOfN(rapid.String(), anyValue(depth-1), 0, 3), func(m map[string]any) any { return m }),
		rapid.Just[any](map[string]any{"builtin": map[string]any{"schematicID": "evil", "version": "v0.0.1"}}),
	)...)
}

var (
	countValue = rapid.OneOf(
		rapid.Map(rapid.IntRange(0, 20), func(n int) any { return json.Number(strconv.Itoa(n)) }),
		rapid.Map(rapid.IntRange(0, 20), func(n int) any { return n }),
		rapid.Map(rapid.IntRange(0, 20), func(n int) any { return float64(n) }),
	)
	quantityValue = rapid.SampledFrom([]any{"20Gi", "50Gi", "1", "500m", json.Number("21474836480"), 4, float64(2)})
	textValue     = rapid.Map(rapid.StringMatching(`[a-z0-9./-]{0,12}`), func(s string) any { return s })
	rolesValue    = rapid.Map(rapid.SliceOfN(rapid.SampledFrom([]any{"worker", "gpu", ingressRole}), 0, 3), func(l []any) any { return l })
	kubeletValue  = rapid.SampledFrom([]any{"1Gi", "500m", "5%", "", "100"})
	kubeletFields = []string{"systemReservedMemory", "kubeReservedMemory", "systemReservedCpu", "kubeReservedCpu", "evictionHardMemory", "evictionSoftMemory"}
)

// addExtras puts non-allowlisted keys into raw under pattern, recording the
// ones that must be reported.
func addExtras(t *rapid.T, raw map[string]any, pattern, rel string, g *tenantGroup) {
	n := rapid.IntRange(0, 3).Draw(t, "extras")
	for range n {
		k := extraKey(pattern).Draw(t, "extraKey")
		if _, taken := raw[k]; taken {
			continue
		}
		v := anyValue(2).Draw(t, "extraValue")
		raw[k] = v
		if tenantSet(v) {
			g.dropped = append(g.dropped, join(rel, k))
		}
	}
}

func join(rel, k string) string {
	if rel == "" {
		return k
	}
	return rel + "." + k
}

// maybe sets key in raw and forwarded, or leaves it out. Values are forwarded
// as written, but storageClass: "" is not set (the pool chart's default
// applies), so it is neither forwarded nor reported. A null, which the values
// schema refuses, is no well-typed value.
func maybe(t *rapid.T, raw, fwd map[string]any, key string, val func() (written, forwarded any)) {
	if rapid.IntRange(0, 5).Draw(t, "presence "+key) < 2 {
		return
	}
	raw[key], fwd[key] = val()
	if key == "storageClass" && raw[key] == "" {
		delete(fwd, key)
	}
}

// tenantSet is whether the model takes a value outside the allowlist as
// set, and so reported when it is dropped: not null.
func tenantSet(v any) bool { return v != nil }

// leaf is a value forwarded as written.
func leaf(g *rapid.Generator[any], t *rapid.T, label string) func() (any, any) {
	return func() (any, any) {
		v := g.Draw(t, label)
		return v, v
	}
}

// tenantGroupOf draws a well-typed group with extra fields anywhere the
// allowlist does not reach. An ingress group serves ingress.
func tenantGroupOf(ingressGroup bool) *rapid.Generator[tenantGroup] {
	return rapid.Custom(func(t *rapid.T) tenantGroup {
		g := tenantGroup{raw: map[string]any{}, forwarded: map[string]any{}}
		raw, fwd := g.raw, g.forwarded
		maybe(t, raw, fwd, "minReplicas", leaf(countValue, t, "minReplicas"))
		if ingressGroup {
			roles := []any{ingressRole}
			raw["roles"], fwd["roles"] = roles, roles
			if rapid.Bool().Draw(t, "maxReplicas set") {
				n := rapid.IntRange(1, 20).Draw(t, "maxReplicas")
				raw["maxReplicas"], fwd["maxReplicas"] = n, n
			}
		} else {
			maybe(t, raw, fwd, "maxReplicas", leaf(countValue, t, "maxReplicas"))
			maybe(t, raw, fwd, "roles", leaf(rolesValue, t, "roles"))
		}
		maybe(t, raw, fwd, "instanceType", leaf(textValue, t, "instanceType"))
		maybe(t, raw, fwd, "storageClass", leaf(textValue, t, "storageClass"))
		maybe(t, raw, fwd, "diskSize", leaf(quantityValue, t, "diskSize"))
		maybe(t, raw, fwd, "resources", func() (any, any) {
			r, f := map[string]any{}, map[string]any{}
			if rapid.Bool().Draw(t, "sized") {
				cpu, memory := quantityValue.Draw(t, "cpu"), quantityValue.Draw(t, "memory")
				r["cpu"], f["cpu"] = cpu, cpu
				r["memory"], f["memory"] = memory, memory
			}
			addExtras(t, r, "resources", "resources", &g)
			return r, f
		})
		maybe(t, raw, fwd, "kubelet", func() (any, any) {
			r, f := map[string]any{}, map[string]any{}
			for _, k := range kubeletFields {
				maybe(t, r, f, k, leaf(kubeletValue, t, k))
			}
			addExtras(t, r, "kubelet", "kubelet", &g)
			return r, f
		})
		maybe(t, raw, fwd, "gpus", func() (any, any) {
			n := rapid.IntRange(0, 3).Draw(t, "gpus")
			rl, fl := make([]any, n), make([]any, n)
			for i := range n {
				name := textValue.Draw(t, "gpu name") // required by the schema
				r, f := map[string]any{"name": name}, map[string]any{"name": name}
				addExtras(t, r, "gpus[]", "gpus["+strconv.Itoa(i)+"]", &g)
				rl[i], fl[i] = r, f
			}
			return rl, fl
		})
		addExtras(t, raw, "", "", &g)
		return g
	})
}

var poolName = rapid.StringMatching(`[a-z][a-z0-9]{0,14}`)

// TestPropertyForwardsOnlyTheAllowlist: whatever fields a tenant puts in a
// node group, the release gets exactly the allowlisted ones it set, never
// osImage, and every dropped field is reported exactly once.
func TestPropertyForwardsOnlyTheAllowlist(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfNDistinct(poolName, 1, 4, func(s string) string { return s }).Draw(t, "pools")
		groups := map[string]any{}
		want := map[string]tenantGroup{}
		var dropped []string
		for i, name := range names {
			g := tenantGroupOf(i == 0).Draw(t, name)
			groups[name], want[name] = g.raw, g
			for _, d := range g.dropped {
				dropped = append(dropped, "nodeGroups."+name+"."+d)
			}
		}

		res, err := Plan(map[string]any{"_namespace": map[string]any{"etcd": "e"}, "nodeGroups": groups})
		if err != nil {
			t.Fatalf("a well-typed tenant group with an ingress pool is refused: %v", err)
		}
		if len(res.Pools) != len(names) {
			t.Fatalf("%d pools for %d groups", len(res.Pools), len(names))
		}
		for _, p := range res.Pools {
			if bad := outsideAllowlist(p.Values, ""); len(bad) > 0 {
				t.Fatalf("pool %s carries fields outside the allowlist: %v", p.Name, bad)
			}
			if p.Values["cluster"] != clusterRelease {
				t.Fatalf("pool %s has cluster %v", p.Name, p.Values["cluster"])
			}
			got := maps.Clone(p.Values)
			delete(got, "cluster")
			if !reflect.DeepEqual(got, want[p.Name].forwarded) {
				t.Fatalf("pool %s forwarded\n%v\nwant\n%v", p.Name, got, want[p.Name].forwarded)
			}
		}

		var reported []string
		for _, w := range res.Warnings {
			if w.Reason == guard.DroppedField {
				reported = append(reported, w.Field)
			}
		}
		slices.Sort(reported)
		slices.Sort(dropped)
		if !slices.Equal(reported, dropped) {
			t.Fatalf("dropped fields reported\n%q\nwant each once\n%q", reported, dropped)
		}
	})
}

// TestPropertyAnyValues: whatever a values file holds, Plan neither panics
// nor forwards anything outside the allowlist; every finding has a known
// reason of its kind (or InvalidQuantity warned at a diskSize) and a field;
// a refused plan has no pools; each dropped field is reported once; Plan is
// deterministic and leaves its input alone.
func TestPropertyAnyValues(t *testing.T) {
	groupKey := rapid.OneOf(poolName, rapid.String(), rapid.SampledFrom([]string{"md0", "Md0", "abcdefghijklmnop", ""}))
	fieldKey := rapid.OneOf(rapid.SampledFrom(slices.Collect(func(yield func(string) bool) {
		for p := range forwardable {
			if !strings.ContainsAny(p, ".[") && !yield(p) {
				return
			}
		}
	})), extraKey(""))
	group := rapid.OneOf(
		rapid.Map(rapid.MapOfN(fieldKey, anyValue(2), 0, 6), func(m map[string]any) any { return m }),
		anyValue(1),
	)
	values := rapid.Custom(func(t *rapid.T) map[string]any {
		v := map[string]any{}
		switch rapid.IntRange(0, 3).Draw(t, "nodeGroups kind") {
		case 0:
		case 1:
			v["nodeGroups"] = anyValue(2).Draw(t, "nodeGroups")
		default:
			v["nodeGroups"] = rapid.MapOfN(groupKey, group, 0, 4).Draw(t, "nodeGroups")
		}
		if rapid.Bool().Draw(t, "_namespace set") {
			v["_namespace"] = rapid.OneOf(anyValue(1), rapid.Just[any](map[string]any{"etcd": ""})).Draw(t, "_namespace")
		}
		return v
	})

	rapid.Check(t, func(t *rapid.T) {
		v := values.Draw(t, "values")
		before := deepCopy(v)

		res, err := Plan(v)

		if !reflect.DeepEqual(v, before) {
			t.Fatalf("Plan modified its input")
		}
		if (err == nil) != (len(res.Refusals) == 0) {
			t.Fatalf("error %v with refusals %v", err, res.Refusals)
		}
		for _, r := range res.Refusals {
			if !fixtures.IsRefusalReason(r.Reason) || r.Field == "" {
				t.Fatalf("refusal %q at %q", r.Reason, r.Field)
			}
		}
		if err != nil && len(res.Pools) > 0 {
			t.Fatalf("a refused plan has pools")
		}
		seen := map[string]bool{}
		for _, w := range res.Warnings {
			// A diskSize that is no positive quantity renders as given, as
			// the pre-feature chart rendered it: a warning there.
			sizeWarning := w.Reason == guard.InvalidQuantity && strings.HasSuffix(w.Field, ".diskSize")
			if !fixtures.IsWarningReason(w.Reason) && !sizeWarning || w.Field == "" {
				t.Fatalf("warning %q at %q", w.Reason, w.Field)
			}
			if w.Reason == guard.DroppedField {
				if seen[w.Field] {
					t.Fatalf("%s reported twice", w.Field)
				}
				seen[w.Field] = true
			}
		}
		if groups, ok := v["nodeGroups"].(map[string]any); ok {
			for name, g := range groups {
				group, ok := g.(map[string]any)
				if !ok {
					continue
				}
				for k, val := range group {
					fld := field.NewPath("nodeGroups").Child(name).Child(k).String()
					if tenantSet(val) && !forwardable[k] && !seen[fld] {
						t.Fatalf("%s dropped without a report", fld)
					}
				}
			}
		}
		for _, p := range res.Pools {
			if bad := outsideAllowlist(p.Values, ""); len(bad) > 0 {
				t.Fatalf("pool %q carries fields outside the allowlist: %v", p.Name, bad)
			}
		}

		again, _ := Plan(v)
		a, errA := json.Marshal(res)
		b, errB := json.Marshal(again)
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Fatalf("Plan is not deterministic or its result is no JSON: %v %v\n%s\n%s", errA, errB, a, b)
		}
	})
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = deepCopy(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = deepCopy(val)
		}
		return out
	}
	return v
}
