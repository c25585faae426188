package invariants_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestValuesPathsAgree (invariant 9): whatever a
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

// fluxPoolValues draws a KubernetesNodes spec as the JSON text the API
// server hands on, which Flux decodes for Helm: the keys on the disk's and
// the installer's paths (cluster, diskSize, storageClass, talos and each
// of its values, osImage in the forms that mean none), misspelt and
// injected keys, each absent or holding null, "", a string of the key's
// own kind (quantities on and off the values schema's pattern, classes,
// URLs, IDs, versions and repositories with trailing slashes, spaces,
// quotes, newlines and control characters), any printable string, a
// number written in any JSON form (large, negative, zero and -0,
// fractional, with an exponent), a boolean, an empty or a full map or
// list.
func fluxPoolValues() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		var fields []string
		add := func(key, value string) { fields = append(fields, jsonText(key)+":"+value) }
		if rapid.IntRange(0, 9).Draw(t, "cluster kind") < 8 {
			add("cluster", `"demo"`)
		} else if v, set := jsonValue(t, "cluster", []string{"", "other", "dem", "demo-md0"}, 1); set {
			add("cluster", v)
		}
		if v, set := jsonValue(t, "diskSize", sizeTexts, 4); set {
			add("diskSize", v)
		}
		if v, set := jsonValue(t, "storageClass", classTexts, 1); set {
			add("storageClass", v)
		}
		if v, set := talosValue(t); set {
			add("talos", v)
		}
		if v := rapid.SampledFrom([]string{"", "null", "{}", `{"factory":null}`, `{"builtin":null}`}).Draw(t, "osImage"); v != "" {
			add("osImage", v)
		}
		for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom([]string{"_namespace", "storageClas", "disksize"}), rapid.ID[string]).Draw(t, "unknown keys") {
			add(k, rapid.SampledFrom([]string{`{"etcd":"tenant-root"}`, `"fast"`, "5", "null"}).Draw(t, k))
		}
		order := rapid.Permutation(fields).Draw(t, "order")
		return "{" + strings.Join(order, ",") + "}"
	})
}

// The strings each key is drawn from, besides any printable one.
var (
	sizeTexts = []string{"20Gi", "30Gi", "50Gi", "20480Mi", "1e3", "1E3", "+20Gi", "-1Gi", "0", "0Gi", ".5", "5.", "1.5Gi",
		"2.147483648e+10", "21474836480", "1e1.5", "7Ei", "500m", "", " 20Gi", "20Gi ", "20 Gi", "20GiB", "abc", "20Gi\n", "+-1", "٢٠Gi"}
	classTexts = []string{"fast", "replicated", "local-path", " fast ", `a"b\c`, "für-été", "a\nb", "a\tb\x01", "0", "", "#x", "a: b"}
	urlTexts   = []string{"https://factory.talos.dev", "https://mirror.example/", "https://mirror.example//", "http://mirror.example:8080/talos/",
		"", "/", " https://mirror.example", "https://mirror.example/ ", "https://mirror.example/#x", "https://mirror.example #x",
		"https://mirror.example: x", "https://mirror.example/?a=1", "https://mirror.example\nx: y", "https://fäctory.example"}
	idTexts      = []string{"ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515", "abc123", "", "ABC123", "ab$c", "a/b", "x y"}
	versionTexts = []string{"v1.13.6", "v1.13.5", "v1.12.0", "v1.13.0-beta.1", "1.13.6", "", "v1.13.6\n", "v1.13"}
	repoTexts    = []string{"factory.talos.dev/installer", "registry.example/talos/installer/", "registry.example/installer//", "",
		"/", "registry.example/$HOME/`x`", `registry.example\installer`}
	mirrorTexts = []string{`{}`, `{"docker.io":{"endpoints":["https://mirror.example"]}}`, `{"ghcr.io":null}`, `null`, `"mirror"`, `[]`, `5`}
	otherTexts  = []string{"null", "true", "false", "{}", "[]", `["a"]`, `{"a":1}`, `{"a":null}`}
)

// jsonValue draws the JSON text of a value for key: absent (set false,
// weight 2), one of texts (weight 8), any printable string, a number
// (weight numbers), or null, a boolean, a map or a list.
func jsonValue(t *rapid.T, key string, texts []string, numbers int) (string, bool) {
	switch k := rapid.IntRange(0, 11+numbers).Draw(t, key+" kind"); {
	case k <= 1:
		return "", false
	case k <= 9:
		return jsonText(rapid.SampledFrom(texts).Draw(t, key)), true
	case k == 10:
		return jsonText(rapid.StringOf(rapid.RuneFrom(nil, unicode.L, unicode.N, unicode.P, unicode.S, unicode.Zs)).Draw(t, key)), true
	case k == 11:
		return rapid.SampledFrom(otherTexts).Draw(t, key), true
	}
	return jsonNumber().Draw(t, key), true
}

// talosValue draws talos: absent, null, a value of another type, or a map
// of some of its values (each as jsonValue draws it), an unknown and an
// injected key among them.
func talosValue(t *rapid.T) (string, bool) {
	switch rapid.IntRange(0, 9).Draw(t, "talos kind") {
	case 0:
		return "", false
	case 1:
		return rapid.SampledFrom([]string{"null", `"v1.13.6"`, "5", "[]", "true"}).Draw(t, "talos"), true
	}
	keys := map[string][]string{"schematicID": idTexts, "version": versionTexts, "imageFactoryURL": urlTexts,
		"installerRepository": repoTexts, "schematicId": idTexts, "_note": {"pinned"}}
	var fields []string
	for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom([]string{"schematicID", "version", "imageFactoryURL", "installerRepository",
		"registryMirrors", "schematicId", "_note"}), rapid.ID[string]).Draw(t, "talos keys") {
		v, set := "", true
		if k == "registryMirrors" {
			v = rapid.SampledFrom(mirrorTexts).Draw(t, k)
		} else {
			v, set = jsonValue(t, "talos."+k, keys[k], 1)
		}
		if set {
			fields = append(fields, jsonText(k)+":"+v)
		}
	}
	return "{" + strings.Join(fields, ",") + "}", true
}

// jsonNumber draws a JSON number as written: a notable one (0, -0, 1e6,
// 2^53+1, 1e21, 1.5 …), or digits with a sign, a fraction and an exponent
// drawn, all within float64's range.
func jsonNumber() *rapid.Generator[string] {
	notable := []string{"0", "-0", "0.0", "-0.0", "0e5", "1", "20", "-5", "999999", "1000000", "1234567", "123456", "21474836480",
		"1073741824000", "9007199254740993", "1e21", "1E21", "-1e21", "1e+300", "2.5e1", "1.5", "0.5", "1.0", "20.0", "1e-3",
		"1e-7", "2147483648e1", "1e6", "123456789012345678901234567890"}
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.Bool().Draw(t, "notable") {
			return rapid.SampledFrom(notable).Draw(t, "number")
		}
		n := rapid.StringMatching(`-?(0|[1-9][0-9]{0,24})`).Draw(t, "digits")
		if rapid.IntRange(0, 3).Draw(t, "fraction") == 0 {
			n += "." + rapid.StringMatching(`[0-9]{1,6}`).Draw(t, "decimals")
		}
		if rapid.IntRange(0, 2).Draw(t, "exponent") == 0 {
			n += rapid.SampledFrom([]string{"e", "E", "e+", "e-", "E-"}).Draw(t, "e") + strconv.Itoa(rapid.IntRange(0, 280).Draw(t, "power"))
		}
		return n
	})
}

// jsonText is s as a JSON string.
func jsonText(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
