package plan_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The paths pool values come by. Each must read the same values alike:
// a Helm or controller values map, a JSON
// document, a KubernetesNodes object, a YAML document.
const (
	viaDecodePool     = "plan.DecodePool"
	viaJSON           = "json.Unmarshal into plan.PoolSpec"
	viaPoolFromObject = "plan.PoolFromObject"
	viaYAML           = "yaml.Unmarshal into plan.PoolSpec"
)

var paths = []string{viaDecodePool, viaJSON, viaPoolFromObject, viaYAML}

// read is what one path made of a values map: the spec as a caller sees
// it, the error of the decoders that return one, and the plan's findings.
type read struct {
	spec      plan.PoolSpec
	decodeErr error
	refusals  []finding
	warnings  guard.Warnings
}

// readEveryPath reads values (a map as Flux hands it to Helm: decoded
// JSON, every number a float64) on each path into the pool demo-md0 and
// plans it against the healthy cluster.
func readEveryPath(t *testing.T, values map[string]any) map[string]read {
	t.Helper()
	out := map[string]read{}
	planned := func(path string, pool plan.Pool, decodeErr error) {
		res, err := plan.Plan(pool, enabledCatalog(), state.NewSnapshot(fullState()))
		out[path] = read{spec: exported(pool.Spec), decodeErr: decodeErr, refusals: refusalsOf(err), warnings: res.Warnings}
	}

	planned(viaDecodePool, plan.DecodePool(tenantNS, "demo-md0", values), nil)

	data, err := json.Marshal(values)
	require.NoError(t, err)
	var fromJSON plan.PoolSpec
	err = json.Unmarshal(data, &fromJSON)
	planned(viaJSON, plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: fromJSON}, err)

	pool, err := plan.PoolFromObject(map[string]any{
		"apiVersion": plan.PoolAPIVersion,
		"kind":       plan.PoolKind,
		"metadata":   map[string]any{"namespace": tenantNS, "name": "demo-md0"},
		"spec":       values,
	})
	require.NoError(t, err, "a KubernetesNodes object is read")
	planned(viaPoolFromObject, pool, nil)

	data, err = yaml.Marshal(values)
	require.NoError(t, err)
	var fromYAML plan.PoolSpec
	err = yaml.Unmarshal(data, &fromYAML)
	planned(viaYAML, plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: fromYAML}, err)
	return out
}

// exported is a spec as a caller sees it: its exported fields (the
// findings it carries are compared through the plan that reports them).
func exported(s plan.PoolSpec) plan.PoolSpec {
	return plan.PoolSpec{Cluster: s.Cluster, DiskSize: s.DiskSize, StorageClass: s.StorageClass, OSImage: s.OSImage, Talos: s.Talos}
}

// demo is a pool's values: cluster demo and the key-value pairs kv.
func demo(kv ...any) map[string]any {
	m := map[string]any{"cluster": "demo"}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

type object = map[string]any

type list = []any

// TestPoolValuesEveryPath: every path produces the same PoolSpec, and the plan
// the same findings, for null, absent, number and empty values, as the
// kubernetes-nodes chart reads them once Helm has merged them with its defaults
// and checked them against its values schema (and the chart as Helm renders
// it): an absent key takes the chart's default; null deletes it (an empty text,
// the cluster's default class), except where the schema then misses a required
// talos value or the templates fail without talos (refused); diskSize takes a
// whole number or a string on the schema's quantity pattern, and goes through
// Helm's default, for which 0 and null are 20Gi; a number is what fmt prints
// for Flux's float64. A value the chart's schema refuses (anything but a string
// where one belongs; for diskSize a fraction, a boolean, a map, a list, "" or a
// string off the quantity pattern) is refused InvalidValue at its path; a key
// the chart does not define warns UnknownField, naming the nearest key; keys
// starting with "_" are Cozystack's injected values, never unknown.
func TestPoolValuesEveryPath(t *testing.T) {
	spec := func(edit func(*plan.PoolSpec)) *plan.PoolSpec {
		s := plan.DefaultPoolSpec("demo")
		if edit != nil {
			edit(&s)
		}
		return &s
	}
	builtin := func(id, version string) *plan.OSImage {
		return &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
	}
	cases := map[string]struct {
		reason string
		values map[string]any
		// want is the spec every path reads; nil for refused values, whose
		// spec is only compared between the paths.
		want     *plan.PoolSpec
		refusals []finding
		warnings []finding
		// near names, per UnknownField, the key it suggests.
		near map[string]string
	}{
		// Ported from adapters/helm TestPoolSpec.
		"defaults": {
			reason: "absent keys take the chart's defaults",
			values: demo(),
			want:   spec(nil),
		},
		"nulls": {
			reason: "null deletes the chart's default, as Helm does: no class, no osImage; diskSize's default still applies",
			values: demo("diskSize", nil, "storageClass", nil, "osImage", nil),
			want:   spec(func(s *plan.PoolSpec) { s.StorageClass = "" }),
		},
		"null storageClass": {
			reason: "a null storageClass leaves the class to the cluster, as the chart rendered no storageClassName",
			values: demo("storageClass", nil),
			want:   spec(func(s *plan.PoolSpec) { s.StorageClass = "" }),
		},
		"empty strings": {
			reason:   `"" keeps its meaning for storageClass, the cluster default; the chart's schema refuses a diskSize of "", which its quantity pattern does not match`,
			values:   demo("diskSize", "", "storageClass", ""),
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"builtin empty": {
			reason: "builtin: {} is set, each field defaulting to talos.*",
			values: demo("osImage", object{"builtin": object{}}),
			want:   spec(func(s *plan.PoolSpec) { s.OSImage = builtin("", "") }),
		},
		"builtin null": {
			reason: "builtin: null is not set: the pool imports over HTTP",
			values: demo("osImage", object{"builtin": nil}),
			want:   spec(nil),
		},
		"builtin flavor": {
			reason:   "the builtin flavor is read as given (and is not in the catalog)",
			values:   demo("osImage", object{"builtin": object{"schematicID": "abc", "version": "v1.2.3"}}),
			want:     spec(func(s *plan.PoolSpec) { s.OSImage = builtin("abc", "v1.2.3") }),
			refusals: []finding{f(guard.GoldenNotInCatalog, "osImage.builtin")},
		},
		"partial talos": {
			reason: "talos keys absent keep their defaults",
			values: demo("talos", object{"version": "v1.12.0"}),
			want:   spec(func(s *plan.PoolSpec) { s.Talos.Version = "v1.12.0" }),
		},
		"other values": {
			reason: "values the planner does not read are left alone, whatever their type",
			values: demo("minReplicas", 3.0, "roles", list{"ingress-nginx"}, "resources", 7.0),
			want:   spec(nil),
		},
		"number version": {
			reason:   "a number where a string belongs is refused, as a values schema refuses it",
			values:   demo("osImage", object{"builtin": object{"version": 1.13}}),
			refusals: []finding{f(guard.InvalidValue, "osImage.builtin.version")},
		},
		// Changed for CDI v1.64.0: 20 bytes is under 1MiB, which CDI's
		// webhook rejects (apiserver/webhooks/datavolume-validate.go
		// validateStorageSize): the HTTP path warns DiskUnrenderable.
		"number diskSize": {
			reason:   "diskSize: 20 renders \"20\", as the pre-feature chart did: no new refusal, but CDI admits no disk under 1MiB",
			values:   demo("diskSize", 20.0),
			want:     spec(func(s *plan.PoolSpec) { s.DiskSize = "20" }),
			warnings: []finding{f(guard.DiskUnrenderable, "diskSize")},
		},
		"list where a map belongs": {
			reason:   "a list where a map belongs is refused at its path",
			values:   demo("osImage", list{"builtin"}),
			refusals: []finding{f(guard.InvalidValue, "osImage")},
		},
		"boolean where a map belongs": {
			reason:   "builtin: true is not a flavor",
			values:   demo("osImage", object{"builtin": true}),
			refusals: []finding{f(guard.InvalidValue, "osImage.builtin")},
		},
		"all at once": {
			reason: "every type error is reported together (and a cluster that cannot be read is not set)",
			values: map[string]any{
				"cluster":      list{7.0},
				"diskSize":     object{"a": 20.0},
				"storageClass": list{"a"},
				"osImage":      object{"factory": object{"imageFactoryURL": object{}}},
				"talos":        object{"schematicID": list{123.0}},
			},
			refusals: []finding{
				f(guard.InvalidValue, "cluster"),
				f(guard.InvalidValue, "diskSize"),
				f(guard.InvalidValue, "osImage.factory.imageFactoryURL"),
				f(guard.InvalidValue, "storageClass"),
				f(guard.InvalidValue, "talos.schematicID"),
				f(guard.InvalidPoolName, "cluster"),
			},
		},

		// storageClass: only a non-empty value names a class.
		"storageClass absent": {
			reason: "the chart's default class",
			values: demo("diskSize", "20Gi"),
			want:   spec(nil),
		},
		"storageClass \"\"": {
			reason: "the cluster default",
			values: demo("storageClass", ""),
			want:   spec(func(s *plan.PoolSpec) { s.StorageClass = "" }),
		},
		"storageClass 0": {
			reason:   "the chart's schema takes only a string: 0 fails the release, so it is refused",
			values:   demo("storageClass", 0.0),
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},
		"storageClass false": {
			reason:   "the chart's schema takes only a string: false fails the release",
			values:   demo("storageClass", false),
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},
		// Changed for CDI v1.64.0: the cluster has no class "5", and CDI
		// renders no PVC on a class that does not exist
		// (controller/datavolume/util.go
		// renderPvcSpecVolumeModeAndAccessModesAndStorageClass): the HTTP
		// path warns StorageClassNotFound.
		"storageClass \"5\"": {
			reason:   "neighbour: a string that reads as a number is a class name (one the cluster lacks)",
			values:   demo("storageClass", "5"),
			want:     spec(func(s *plan.PoolSpec) { s.StorageClass = "5" }),
			warnings: []finding{f(guard.StorageClassNotFound, "storageClass")},
		},
		"storageClass a map": {
			reason:   "a map where a string belongs is refused at its path",
			values:   demo("storageClass", object{"name": "local"}),
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},

		// talos: null deletes the chart's map, or one value of it.
		"talos null": {
			reason:   "Helm deletes the whole talos map, and the chart's templates fail to render without it",
			values:   demo("talos", nil),
			refusals: []finding{f(guard.InvalidValue, "talos")},
		},
		"talos {}": {
			reason: "neighbour: an empty talos map keeps every default",
			values: demo("talos", object{}),
			want:   spec(nil),
		},
		"talos.version null": {
			reason:   "Helm deletes the one value, which the chart's schema requires",
			values:   demo("talos", object{"version": nil}),
			refusals: []finding{f(guard.InvalidValue, "talos.version")},
		},
		"talos.version a map": {
			reason:   "a map where a string belongs is refused at its path",
			values:   demo("talos", object{"version": object{"major": 1.0}}),
			refusals: []finding{f(guard.InvalidValue, "talos.version")},
		},
		"talos.registryMirrors null": {
			reason:   "Helm deletes the chart's {} with it, and the chart's schema requires a registryMirrors map",
			values:   demo("talos", object{"registryMirrors": nil}),
			refusals: []finding{f(guard.InvalidValue, "talos.registryMirrors")},
		},
		"talos.registryMirrors a list": {
			reason:   "the chart's schema takes only a map there",
			values:   demo("talos", object{"registryMirrors": []any{"mirror.example"}}),
			refusals: []finding{f(guard.InvalidValue, "talos.registryMirrors")},
		},
		"talos.registryMirrors a map": {
			reason: "neighbour: a map of mirrors, its nulls deleted by Helm, is not the planner's to read",
			values: demo("talos", object{"registryMirrors": object{"docker.io": object{"endpoints": []any{"https://mirror.example"}}, "ghcr.io": nil}}),
			want:   spec(nil),
		},

		// diskSize goes through Helm's default "20Gi", then quote.
		"diskSize 0": {
			reason: "0 is unset to Helm's default: 20Gi",
			values: demo("diskSize", 0.0),
			want:   spec(nil),
		},
		"diskSize \"\"": {
			reason:   "the chart's schema holds a diskSize string to its quantity pattern, which \"\" does not match: Helm refuses the release, and so does the planner",
			values:   demo("diskSize", ""),
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize \" \"": {
			reason:   "a blank is off the schema's quantity pattern: refused",
			values:   demo("diskSize", " "),
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize null": {
			reason: "null is unset to Helm's default: 20Gi",
			values: demo("diskSize", nil),
			want:   spec(nil),
		},
		"diskSize false": {
			reason:   "the chart's schema takes a whole number or a string: a boolean fails the release, though the template's default would read false as unset",
			values:   demo("diskSize", false),
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize {}": {
			reason:   "an empty map is no size to the chart's schema, and its template prints none: refused",
			values:   demo("diskSize", object{}),
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize 1.5": {
			reason:   "the chart's schema takes a whole number: a fraction fails the release",
			values:   demo("diskSize", 1.5),
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		// Changed for CDI v1.64.0: 1e+06 and 20 bytes are under 1MiB, which
		// CDI's webhook rejects (apiserver/webhooks/datavolume-validate.go
		// validateStorageSize): the HTTP path warns DiskUnrenderable.
		"diskSize 1000000": {
			reason:   "neighbour: a whole number prints as Flux's float64, in exponent form from 1e+06 (under 1MiB)",
			values:   demo("diskSize", 1000000.0),
			want:     spec(func(s *plan.PoolSpec) { s.DiskSize = "1e+06" }),
			warnings: []finding{f(guard.DiskUnrenderable, "diskSize")},
		},
		"diskSize 1048576": {
			reason: "neighbour: 1Mi, the least size CDI admits, prints in exponent form and warns nothing",
			values: demo("diskSize", 1048576.0),
			want:   spec(func(s *plan.PoolSpec) { s.DiskSize = "1.048576e+06" }),
		},
		"diskSize 20": {
			reason:   "20 prints \"20\": a size of 20 bytes, as the chart rendered it (under 1MiB)",
			values:   demo("diskSize", 20.0),
			want:     spec(func(s *plan.PoolSpec) { s.DiskSize = "20" }),
			warnings: []finding{f(guard.DiskUnrenderable, "diskSize")},
		},
		"diskSize 21474836480": {
			reason: "Flux's float64 prints in fmt's exponent form, as the chart renders it",
			values: demo("diskSize", 21474836480.0),
			want:   spec(func(s *plan.PoolSpec) { s.DiskSize = "2.147483648e+10" }),
		},
		"diskSize \"20Gi\"": {
			reason: "a quantity string is itself",
			values: demo("diskSize", "20Gi"),
			want:   spec(nil),
		},
		"diskSize true": {
			reason:   "the chart's schema takes a whole number or a string: a boolean fails the release",
			values:   demo("diskSize", true),
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},

		// osImage: only a builtin or a factory map picks a source.
		"osImage null": {
			reason: "no osImage: the pre-feature HTTP import",
			values: demo("osImage", nil),
			want:   spec(nil),
		},
		"osImage {}": {
			reason: "neither source set: the pre-feature HTTP import",
			values: demo("osImage", object{}),
			want:   spec(nil),
		},
		"osImage {builtin: null}": {
			reason: "builtin deleted: the pre-feature HTTP import",
			values: demo("osImage", object{"builtin": nil}),
			want:   spec(nil),
		},
		"osImage {builtin: {}}": {
			reason: "the default flavor, cloned",
			values: demo("osImage", object{"builtin": object{}}),
			want:   spec(func(s *plan.PoolSpec) { s.OSImage = builtin("", "") }),
		},

		// Keys the chart does not define.
		"osimage": {
			reason:   "a misspelled osImage is dropped by the chart: the pool imports over HTTP, and says why",
			values:   demo("osimage", object{"builtin": object{}}),
			want:     spec(nil),
			warnings: []finding{f(guard.UnknownField, "osimage")},
			near:     map[string]string{"osimage": "osImage"},
		},
		"osImage.builtin.schematicId": {
			reason:   "the ID's case matters: the default flavor is cloned, and the misspelling named",
			values:   demo("osImage", object{"builtin": object{"schematicId": "abc"}}),
			want:     spec(func(s *plan.PoolSpec) { s.OSImage = builtin("", "") }),
			warnings: []finding{f(guard.UnknownField, "osImage.builtin.schematicId")},
			near:     map[string]string{"osImage.builtin.schematicId": "schematicID"},
		},
		"storageClas": {
			reason:   "one letter short: the chart's default class applies",
			values:   demo("storageClas", "local"),
			want:     spec(nil),
			warnings: []finding{f(guard.UnknownField, "storageClas")},
			near:     map[string]string{"storageClas": "storageClass"},
		},
		"talos.verison": {
			reason:   "talos's keys are checked too",
			values:   demo("talos", object{"verison": "v1.12.0", "registryMirrors": object{}}),
			want:     spec(nil),
			warnings: []finding{f(guard.UnknownField, "talos.verison")},
			near:     map[string]string{"talos.verison": "version"},
		},
		"injected keys": {
			reason: "keys starting with _ are the values Cozystack injects, at any depth: never unknown",
			values: demo("_namespace", object{"etcd": "tenant-root"}, "_cluster", object{"name": "root"},
				"osImage", object{"builtin": object{"_note": "pinned"}}),
			want: spec(func(s *plan.PoolSpec) { s.OSImage = builtin("", "") }),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := readEveryPath(t, tc.values)
			first := got[viaDecodePool]
			if tc.want != nil {
				assert.Equal(t, *tc.want, first.spec, "%s: %s", viaDecodePool, tc.reason)
			}
			assert.Equal(t, sorted(tc.refusals...), first.refusals, "refusals; %s", tc.reason)
			assert.Equal(t, sorted(tc.warnings...), warningsOf(first.warnings), "warnings; %s", tc.reason)
			for _, w := range first.warnings {
				if near, ok := tc.near[w.Field]; ok && w.Reason == guard.UnknownField {
					// The suggestion is carried only by the message: it must
					// be there, quoted, whatever the wording around it.
					assert.Contains(t, w.Detail, strconv.Quote(near), "%s suggests the nearest key", w.Field)
				}
			}
			// The decoder refuses what the values schema refuses of the
			// values' types; the planner the rest, a diskSize string off
			// the quantity pattern among them (whoever wrote it).
			var decodeRefusals []finding
			size, isString := tc.values["diskSize"].(string)
			for _, r := range tc.refusals {
				if r.Reason == guard.InvalidValue && !(r.Field == "diskSize" && isString && size != "") {
					decodeRefusals = append(decodeRefusals, r)
				}
			}
			for _, path := range paths[1:] {
				r := got[path]
				assert.Equal(t, first.spec, r.spec, "%s reads another spec than %s", path, viaDecodePool)
				assert.Equal(t, first.refusals, r.refusals, "%s: other refusals", path)
				assert.Equal(t, fixtures.Warned(first.warnings), fixtures.Warned(r.warnings), "%s: other warnings", path)
				if path == viaJSON || path == viaYAML {
					assert.Equal(t, sorted(decodeRefusals...), refusalsOf(r.decodeErr), "%s: the decoder's error is the values' refusals", path)
				}
			}
		})
	}
}

// TestPoolNamesThePool: the refusals of a pool's values name the pool, and
// the pool keeps its name whatever its values.
func TestPoolNamesThePool(t *testing.T) {
	pool := plan.DecodePool(tenantNS, "demo-md0", map[string]any{"cluster": list{1.0}})
	assert.Equal(t, tenantNS, pool.Namespace)
	assert.Equal(t, "demo-md0", pool.Name)
	res, err := plan.Plan(pool, nil, nil)
	require.ErrorIs(t, err, guard.InvalidValue)
	assert.Contains(t, refusalsOf(err), f(guard.InvalidValue, "cluster"))
	for _, r := range res.Refusals {
		assert.Equal(t, "pool "+tenantNS+"/demo-md0", r.Subject, "%s at %s names the pool", r.Reason, r.Field)
	}
}

// TestPoolGoValues: a Go caller's own map and slice types are read like
// Helm's; a value no chart holds is refused, not a panic.
func TestPoolGoValues(t *testing.T) {
	got := plan.DecodePool(tenantNS, "demo-md0", map[string]any{
		"cluster": "demo",
		"osImage": map[string]map[string]string{"builtin": {"version": "v1.2.3"}},
	})
	if assert.NotNil(t, got.Spec.OSImage) && assert.NotNil(t, got.Spec.OSImage.Builtin) {
		assert.Equal(t, "v1.2.3", got.Spec.OSImage.Builtin.Version, "typed maps are read")
	}

	_, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", map[string]any{"cluster": make(chan int)}), nil, nil)
	assert.Equal(t, sorted(f(guard.InvalidValue, "cluster"), f(guard.InvalidPoolName, "cluster")), refusalsOf(err),
		"a channel is no value; the cluster is then not set")

	nilValues := plan.DecodePool(tenantNS, "demo-md0", nil)
	assert.Equal(t, plan.DefaultPoolSpec(""), exported(nilValues.Spec), "nil values are the defaults")
	_, err = plan.Plan(nilValues, nil, nil)
	assert.Equal(t, []finding{f(guard.InvalidPoolName, "cluster")}, refusalsOf(err), "nil values are no finding of their own")
}

// TestPoolFromObject: only a KubernetesNodes of apps.cozystack.io/v1alpha1
// is a pool; its metadata names it, and its spec is read as DecodePool
// reads it.
func TestPoolFromObject(t *testing.T) {
	cases := map[string]struct {
		reason  string
		obj     map[string]any
		want    plan.Pool
		wantErr bool
	}{
		"KubernetesNodes": {
			reason: "namespace and name from the metadata, the spec as values",
			obj: object{"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind,
				"metadata": object{"namespace": tenantNS, "name": "demo-md1"}, "spec": object{"cluster": "demo", "storageClass": nil}},
			want: plan.Pool{Namespace: tenantNS, Name: "demo-md1", Spec: func() plan.PoolSpec {
				s := plan.DefaultPoolSpec("demo")
				s.StorageClass = ""
				return s
			}()},
		},
		"no namespace": {
			reason: "a namespace the object does not name is left for the caller to default",
			obj:    object{"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind, "metadata": map[string]string{"name": "demo-md0"}, "spec": object{"cluster": "demo"}},
			want:   plan.Pool{Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")},
		},
		"no spec": {
			reason: "no spec is the chart's defaults",
			obj:    object{"apiVersion": plan.PoolAPIVersion, "kind": plan.PoolKind, "metadata": object{"namespace": tenantNS, "name": "demo-md0"}},
			want:   plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: plan.DefaultPoolSpec("")},
		},
		"another kind": {
			reason:  "a KubevirtMachineTemplate is no pool",
			obj:     object{"apiVersion": plan.PoolAPIVersion, "kind": "Kubernetes", "metadata": object{"name": "demo"}},
			wantErr: true,
		},
		"another version": {
			reason:  "the kind at another apiVersion is another kind",
			obj:     object{"apiVersion": "apps.cozystack.io/v1beta1", "kind": plan.PoolKind, "metadata": object{"name": "demo-md0"}},
			wantErr: true,
		},
		"no type": {
			reason:  "an object without apiVersion and kind",
			obj:     object{"metadata": object{"name": "demo-md0"}, "spec": object{"cluster": "demo"}},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := plan.PoolFromObject(tc.obj)
			if tc.wantErr {
				require.Error(t, err, tc.reason)
				assert.NotErrorIs(t, err, guard.InvalidValue, "a document that is no pool is unusable input, not a refusal")
				assert.Empty(t, fixtures.Refused(err), "a document that is no pool is unusable input, not a refusal")
				return
			}
			require.NoError(t, err, tc.reason)
			got.Spec = exported(got.Spec)
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}

// TestPoolSpecUnmarshalJSON: the JSON decoder fails for JSON that does not
// parse (not a refusal) and for values the chart cannot read (their
// refusals); null is the chart's defaults.
func TestPoolSpecUnmarshalJSON(t *testing.T) {
	var s plan.PoolSpec
	err := json.Unmarshal([]byte(`{"cluster":`), &s)
	require.Error(t, err)
	assert.Empty(t, fixtures.Refused(err), "a syntax error is not a refusal")

	err = json.Unmarshal([]byte(`["cluster"]`), &s)
	assert.Equal(t, []finding{f(guard.InvalidValue, "spec")}, fixtures.Refused(err), "a list is not the chart's values")

	require.NoError(t, json.Unmarshal([]byte(`null`), &s))
	assert.Equal(t, plan.DefaultPoolSpec(""), exported(s), "null values are the defaults")

	var p plan.Pool
	require.NoError(t, json.Unmarshal([]byte(`{"namespace":"tenant-demo","name":"demo-md0","spec":{"cluster":"demo","diskSize":0}}`), &p))
	assert.Equal(t, plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")}, plan.Pool{Namespace: p.Namespace, Name: p.Name, Spec: exported(p.Spec)},
		"a Pool's spec is read by the same decoder")
}

// TestPoolSpecFromEmptyYAML: an empty or null YAML document holds no
// values, which are the chart's defaults, as DecodePool and encoding/json
// read them, whichever decoder reads it.
//
// sigs.k8s.io/yaml decodes an empty or null document by setting the
// decoding target, an interface, to nil, so no UnmarshalJSON runs and the
// spec stays as it was: the documented way to read such a document is
// DecodePool, or a spec that starts as DefaultPoolSpec.
func TestPoolSpecFromEmptyYAML(t *testing.T) {
	for _, doc := range []string{"", "null\n", "~\n"} {
		s := plan.PoolSpec{Cluster: "stale", DiskSize: "1Gi"}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &s), "%q", doc)
		assert.Equal(t, plan.PoolSpec{Cluster: "stale", DiskSize: "1Gi"}, exported(s), "%q leaves the spec as it was", doc)

		fresh := plan.DefaultPoolSpec("")
		require.NoError(t, yaml.Unmarshal([]byte(doc), &fresh))
		assert.Equal(t, plan.DefaultPoolSpec(""), exported(fresh), "%q on a spec that starts as the defaults is the defaults", doc)

		var values map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &values))
		assert.Equal(t, plan.DefaultPoolSpec(""), exported(plan.DecodePool("", "", values).Spec), "%q through DecodePool is the chart's defaults", doc)
	}
}

// TestPoolFromUnstructured: a KubernetesNodes as a dynamic client holds it
// (apimachinery's unstructured JSON decoding keeps whole numbers as int64)
// reads as the chart reads the values Flux hands it, every number a
// float64: the same text from a KubernetesNodes object
// as from a values map, so that the disk's text, which names the
// KubevirtMachineTemplate by its hash, does not drift.
func TestPoolFromUnstructured(t *testing.T) {
	doc := `{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes",
		"metadata":{"namespace":"tenant-demo","name":"demo-md0"},
		"spec":{"cluster":"demo","diskSize":21474836480,"osImage":{"builtin":{"version":1}}}}`
	var u unstructured.Unstructured
	require.NoError(t, u.UnmarshalJSON([]byte(doc)))
	pool, err := plan.PoolFromObject(u.Object)
	require.NoError(t, err)

	var values map[string]any
	require.NoError(t, json.Unmarshal([]byte(doc), &values))
	want := plan.DecodePool(tenantNS, "demo-md0", values["spec"])
	assert.Equal(t, exported(want.Spec), exported(pool.Spec), "a dynamic client's object reads as Flux's values")
	assert.Equal(t, "2.147483648e+10", pool.Spec.DiskSize)
}

// TestEditedDecodedPool: the findings of decoding a pool's values follow a
// caller's edits of the decoded spec. A refusal stands while the field it
// is about holds what the decoder left there, an edit of another field
// included, and goes once the field is written, even with the chart's
// default (storageClass: 5 corrected to "replicated"); the new value is
// judged as any spec's is. A key the spec has no field for (an unknown
// key, talos.registryMirrors) is not edited away.
func TestEditedDecodedPool(t *testing.T) {
	snap := state.NewSnapshot(fullState())
	cases := map[string]struct {
		reason   string
		values   map[string]any
		edit     func(*plan.PoolSpec)
		refusals []finding
		warnings []finding
	}{
		"storageClass corrected to the default": {
			reason: "storageClass: 5 written over with the chart's default is no longer refused",
			values: demo("storageClass", 5.0),
			edit:   func(s *plan.PoolSpec) { s.StorageClass = "replicated" },
		},
		"storageClass left, another field edited": {
			reason:   "neighbour: editing diskSize leaves the class refused",
			values:   demo("storageClass", 5.0),
			edit:     func(s *plan.PoolSpec) { s.DiskSize = "30Gi" },
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},
		"storageClass unedited": {
			reason:   "neighbour: no edit, the refusal stands",
			values:   demo("storageClass", 5.0),
			edit:     func(*plan.PoolSpec) {},
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},
		"diskSize fraction changed": {
			reason: "diskSize: 0.5 changed to 30Gi says nothing of 0.5",
			values: demo("diskSize", 0.5),
			edit:   func(s *plan.PoolSpec) { s.DiskSize = "30Gi" },
		},
		"diskSize changed to another bad one": {
			reason:   "neighbour: the new value is judged as any spec's: off the quantity pattern, refused",
			values:   demo("diskSize", 0.5),
			edit:     func(s *plan.PoolSpec) { s.DiskSize = "30 Gi" },
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize \"\" set": {
			reason: "diskSize: \"\" corrected to the chart's 20Gi",
			values: demo("diskSize", ""),
			edit:   func(s *plan.PoolSpec) { s.DiskSize = "20Gi" },
		},
		"talos null, talos set": {
			reason: "talos: null replaced by the chart's talos",
			values: demo("talos", nil),
			edit:   func(s *plan.PoolSpec) { s.Talos = plan.DefaultTalos() },
		},
		"talos null, one value set": {
			reason:   "talos: null with the version written: the rest is the spec's own (empty), judged as the HTTP path judges talos.*",
			values:   demo("talos", nil),
			edit:     func(s *plan.PoolSpec) { s.Talos.Version = "v1.13.6" },
			warnings: []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL"), f(guard.InvalidSchematicID, "talos.schematicID")},
		},
		"osImage version edited in place": {
			reason: "a number version corrected inside the decoded osImage",
			values: demo("osImage", object{"builtin": object{"version": 1.13}}),
			edit:   func(s *plan.PoolSpec) { s.OSImage.Builtin.Version = "v1.13.6" },
		},
		"unknown key stays": {
			reason:   "a misspelled key is not the spec's: editing storageClass leaves its warning",
			values:   demo("storageClas", "local", "storageClass", 5.0),
			edit:     func(s *plan.PoolSpec) { s.StorageClass = "replicated" },
			warnings: []finding{f(guard.UnknownField, "storageClas")},
		},
		"registryMirrors stays": {
			reason:   "talos.registryMirrors has no field in the spec: its refusal stands whatever is edited",
			values:   demo("talos", object{"registryMirrors": nil}),
			edit:     func(s *plan.PoolSpec) { s.Talos = plan.DefaultTalos() },
			refusals: []finding{f(guard.InvalidValue, "talos.registryMirrors")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			decoded := plan.DecodePool(tenantNS, "demo-md0", tc.values)
			data, err := json.Marshal(tc.values)
			require.NoError(t, err)
			var fromJSON plan.PoolSpec
			_ = json.Unmarshal(data, &fromJSON)
			for path, pool := range map[string]plan.Pool{viaDecodePool: decoded, viaJSON: {Namespace: tenantNS, Name: "demo-md0", Spec: fromJSON}} {
				tc.edit(&pool.Spec)
				res, err := plan.Plan(pool, enabledCatalog(), snap)
				assert.Equal(t, sorted(tc.refusals...), refusalsOf(err), "%s: refusals; %s", path, tc.reason)
				assert.Equal(t, sorted(tc.warnings...), warningsOf(res.Warnings), "%s: warnings; %s", path, tc.reason)
			}
		})
	}
	// The decoding is the decode's: a copy edited leaves the original's
	// findings whole.
	original := plan.DecodePool(tenantNS, "demo-md0", demo("storageClass", 5.0))
	edited := original
	edited.Spec.StorageClass = "replicated"
	_, err := plan.Plan(edited, enabledCatalog(), snap)
	require.NoError(t, err)
	_, err = plan.Plan(original, enabledCatalog(), snap)
	assert.Equal(t, []finding{f(guard.InvalidValue, "storageClass")}, refusalsOf(err), "the unedited copy")
}
