package whatif

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/poolkeys"
)

// ChartDefault is a new default of the kubernetes-nodes chart, as an
// upgrade of Cozystack moves one: Value at Key, a dotted values path
// (talos.version; a "." inside a key is written "\."), for every pool whose
// values do not set that key themselves. It applies as Helm applies a
// chart's values.yaml: a key the pool sets, to anything, null included,
// keeps the pool's value, and so does a pool that sets any map above it to
// something that is not a map (talos: null keeps no talos at all); a map
// the pool sets takes the default for the keys it does not.
//
// Value is the value as values.yaml holds it (a string, a float64, a bool,
// nil, a []any or a map[string]any); nil is a default of null, which
// leaves the key unset in every pool that does not set it.
type ChartDefault struct {
	Key   string
	Value any
}

// defaultChildren are the keys the kubernetes-nodes chart defines under each
// map-valued key a default can reach into; a map not listed (such as
// talos.registryMirrors) takes any key.
var defaultChildren = map[string][]string{
	"":                poolkeys.Spec.Names(),
	"talos":           poolkeys.Talos.Names(),
	"osImage":         poolkeys.OSImage.Names(),
	"osImage.builtin": poolkeys.Builtin.Names(),
	"osImage.factory": poolkeys.Factory.Names(),
	"resources":       {"cpu", "memory"},
	"kubelet":         {"systemReservedMemory", "kubeReservedMemory", "systemReservedCpu", "kubeReservedCpu", "evictionHardMemory", "evictionSoftMemory"},
	"images":          {"kubectl"},
}

// defaultKinds are the types the kubernetes-nodes values schema takes at
// each key a default can set (values.schema.json): a default of another
// type would fail every pool release that takes it. A key not listed is
// a map the schema checks key by key, or takes anything.
var defaultKinds = map[string]chartvalues.Kind{
	"cluster": chartvalues.Text, "storageClass": chartvalues.Text, "instanceType": chartvalues.Text,
	"diskSize": chartvalues.Quantity, "podCpuLimit": chartvalues.Quantity, "podCpuRequest": chartvalues.Quantity,
	"resources": chartvalues.Object, "resources.cpu": chartvalues.Quantity, "resources.memory": chartvalues.Quantity,
	"roles": chartvalues.Texts, "gpus": chartvalues.Objects, "logSerialConsole": chartvalues.Bool,
	"kubelet": chartvalues.Object, "kubelet.systemReservedMemory": chartvalues.Text, "kubelet.kubeReservedMemory": chartvalues.Text,
	"kubelet.systemReservedCpu": chartvalues.Text, "kubelet.kubeReservedCpu": chartvalues.Text,
	"kubelet.evictionHardMemory": chartvalues.Text, "kubelet.evictionSoftMemory": chartvalues.Text,
	"maxUnhealthy": chartvalues.Text, "nodeStartupTimeout": chartvalues.Text, "readyUnknownTimeout": chartvalues.Text,
	"readyFalseTimeout": chartvalues.Text, "maxNodeProvisionTime": chartvalues.Text, "version": chartvalues.Text,
	"talos": chartvalues.Object, "talos.imageFactoryURL": chartvalues.Text, "talos.installerRepository": chartvalues.Text,
	"talos.registryMirrors": chartvalues.Object, "talos.schematicID": chartvalues.Text, "talos.version": chartvalues.Text,
	"images": chartvalues.Object, "images.kubectl": chartvalues.Text,
	"osImage": chartvalues.Object, "osImage.builtin": chartvalues.Object, "osImage.factory": chartvalues.Object,
	"osImage.builtin.schematicID": chartvalues.Text, "osImage.builtin.version": chartvalues.Text,
	"osImage.factory.schematicID": chartvalues.Text, "osImage.factory.version": chartvalues.Text, "osImage.factory.imageFactoryURL": chartvalues.Text,
}

// integerKeys are the keys the values schema takes an integer at, of any
// sign.
var integerKeys = map[string]bool{"minReplicas": true, "maxReplicas": true}

// requiredKeys are the keys the values schema requires: a null default
// deletes the chart's value, and every pool release that takes it fails.
var requiredKeys = map[string]bool{"talos": true, "talos.imageFactoryURL": true, "talos.installerRepository": true,
	"talos.registryMirrors": true, "talos.schematicID": true, "talos.version": true}

// defaultMaps are the chart's keys that hold a map of any keys.
var defaultMaps = map[string]bool{"talos.registryMirrors": true}

// keyPath splits a dotted key, "\." standing for a dot inside a key.
func keyPath(key string) []string {
	var parts []string
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		switch {
		case key[i] == '\\' && i+1 < len(key) && key[i+1] == '.':
			b.WriteByte('.')
			i++
		case key[i] == '.':
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(key[i])
		}
	}
	return append(parts, b.String())
}

// check refuses a key the chart does not define, naming the nearest one,
// and a key below a value that is not a map.
func (d ChartDefault) check() *guard.Refusal {
	parts := keyPath(d.Key)
	parent, free := "", false
	for i, k := range parts {
		if k == "" {
			var fld *field.Path
			if i > 0 {
				fld = defaultField(parts[:i])
			}
			return d.refuse(fld, "the key %q has an empty part; name a field of the kubernetes-nodes chart's values, such as talos.version", d.Key)
		}
		fld := defaultField(parts[:i+1])
		if !free {
			known, isMap := defaultChildren[parent]
			switch {
			case !isMap:
				return d.refuse(fld, "%s is not a map in the kubernetes-nodes chart's values, so it has no field %q; set %s itself", parent, k, parent)
			case !slices.Contains(known, k):
				return d.refuse(fld, "the kubernetes-nodes chart defines no field %q here; did you mean %q?", k, chartvalues.Nearest(k, known))
			}
		}
		if parent == "" {
			parent = k
		} else {
			parent += "." + k
		}
		free = free || defaultMaps[parent]
	}
	fld := defaultField(parts)
	key := strings.Join(parts, ".")
	switch k, typed := defaultKinds[key]; {
	case d.Value == nil && requiredKeys[key]:
		return d.refuse(fld, "a null default deletes the chart's %s, which its values schema requires, so every pool release that takes it fails; give a value", key)
	case d.Value != nil && integerKeys[key]:
		if f, ok := chartvalues.Float(d.Value); !ok || f != math.Trunc(f) {
			return d.refuse(fld, "the kubernetes-nodes values schema takes an integer at %s, and %s would fail every pool release that takes it; give a whole number", key, chartvalues.Describe(d.Value))
		}
	case d.Value != nil && typed && !k.Accepts(d.Value):
		return d.refuse(fld, "the kubernetes-nodes values schema takes %s at %s, and %s would fail every pool release that takes it; give %s", k, key, chartvalues.Describe(d.Value), k)
	}
	return nil
}

// defaultField is a key's values path.
func defaultField(parts []string) *field.Path {
	return field.NewPath(parts[0], parts[1:]...)
}

func (d ChartDefault) refuse(fld *field.Path, format string, args ...any) *guard.Refusal {
	r := findings.NewRefusal(guard.InvalidValue, fld, d.Key, format, args...)
	r.Subject = "chart default " + d.Key
	return r
}

// apply returns spec with the default set where the pool does not set the
// key. It copies only the maps along the key's path: spec itself is never
// changed.
func (d ChartDefault) apply(spec any) any {
	return setDefault(spec, keyPath(d.Key), d.Value)
}

// setDefault sets value at path in v where v does not set it: an absent
// key takes it, an absent map is made for it; a key that is set, null
// included, and a value where the chart has a map (Helm keeps the user's)
// stay as they are.
func setDefault(v any, path []string, value any) any {
	m := map[string]any{}
	if v != nil {
		var ok bool
		if m, ok = chartvalues.Map(v); !ok {
			return v
		}
	}
	k := path[0]
	cur, present := m[k]
	switch {
	case !present && len(path) == 1:
		return with(m, k, value)
	case !present:
		return with(m, k, setDefault(nil, path[1:], value))
	case len(path) == 1 || cur == nil:
		// Set by the pool; a null map deletes every default in it.
		return v
	}
	if _, isMap := chartvalues.Map(cur); !isMap {
		return v
	}
	return with(m, k, setDefault(cur, path[1:], value))
}

// with is a shallow copy of m with k set to v.
func with(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for key, val := range m {
		out[key] = val
	}
	out[k] = v
	return out
}

// checkDefaults refuses every default whose key the chart does not define,
// and a key given twice.
func checkDefaults(ds []ChartDefault) guard.Refusals {
	var rs guard.Refusals
	seen := map[string]bool{}
	for _, d := range ds {
		if r := d.check(); r != nil {
			rs = append(rs, r)
			continue
		}
		if seen[d.Key] {
			rs = append(rs, d.refuse(defaultField(keyPath(d.Key)), "%s is given twice; give each default once", d.Key))
		}
		seen[d.Key] = true
	}
	return rs
}

// String reads "talos.version=v1.13.7".
func (d ChartDefault) String() string { return fmt.Sprintf("%s=%s", d.Key, chartvalues.Print(d.Value)) }
