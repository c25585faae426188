// Package catalogrelease reads the catalog from its HelmRelease as Flux
// and Helm give it to the chart: spec.valuesFrom merged in order, then
// spec.values over them, the keys Cozystack reserves ("_…") left out; the
// chart's defaults are catalog.DecodeValues'. Every surface that reads a
// cluster (the CLI, the webhook, an embedding controller) reads the
// catalog here, so that they plan against the same one.
package catalogrelease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// GVR is Flux's HelmRelease.
var GVR = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}

// Default is the catalog's HelmRelease unless told otherwise:
// cozystack-operator releases a package's component under its name in its
// install namespace.
var Default = types.NamespacedName{Namespace: "cozy-system", Name: "kubernetes-worker-image"}

// Images is the HelmRelease of Cozystack's vm-default-images package: its
// values are the image catalog VMDisks clone from.
var Images = types.NamespacedName{Namespace: "cozy-system", Name: "vm-default-images"}

// platformValues is the Secret every Cozystack release takes values from;
// it holds the platform's "_" keys only, which the catalog drops.
const platformValues = "cozystack-values"

// defaultValuesKey is the key of a valuesFrom ConfigMap or Secret that
// Flux reads unless valuesKey names another.
const defaultValuesKey = "values.yaml"

// IsHelmRelease reports whether obj is a Flux HelmRelease (of any version
// of helm.toolkit.fluxcd.io): a values file that holds one is not values.
func IsHelmRelease(obj map[string]any) bool {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	group, _, _ := strings.Cut(apiVersion, "/")
	return kind == "HelmRelease" && group == GVR.Group
}

// Ref is one spec.valuesFrom entry.
type Ref struct {
	Kind, Name, ValuesKey, TargetPath string
	Optional                          bool
}

func (r Ref) String() string { return r.Kind + " " + r.Name }

// key is the data key Flux reads.
func (r Ref) key() string {
	if r.ValuesKey == "" {
		return defaultValuesKey
	}
	return r.ValuesKey
}

// Source reads the data of the ConfigMap or Secret (kind) a valuesFrom
// entry names, in the release's namespace, and its resourceVersion; an
// error apierrors.IsNotFound opens is an object that does not exist.
type Source func(ctx context.Context, kind, namespace, name string) (data map[string][]byte, version string, err error)

// ErrOffline is a valuesFrom entry that no Source can read: the release
// came from a file, without a cluster.
var ErrOffline = errors.New("its values are in the cluster, and no cluster was read")

// Release is a catalog HelmRelease's values as the chart receives them.
type Release struct {
	// Values are merged as Flux merges them, less the "_" keys.
	Values map[string]any
	// Read are the valuesFrom entries whose values were merged.
	Read []Ref
	// Notes say what was left out: an optional entry that does not exist,
	// the platform's Secret of "_" keys.
	Notes []string
	// versions are the resourceVersions of the objects read, in order:
	// with the release's generation, they say the values are unchanged.
	versions []string
}

// Values reads a HelmRelease object's values: each spec.valuesFrom entry
// in order (its valuesKey, default values.yaml; with targetPath the whole
// text set at that dotted path, as Helm's --set does; optional: a missing
// object or key is skipped), then spec.values merged over them, maps
// merged key by key and anything else replaced (a null replaces too: Helm
// then drops the chart's default), as Flux's helm-controller does
// (internal/chartutil/values.go ChartValuesFromReferences). src nil (a
// release from a file) reads no entry; any entry is then an error
// wrapping ErrOffline. Cozystack's platform Secret (cozystack-values,
// without targetPath) is never read, from a cluster or not: it holds only
// the "_" keys, which the catalog drops, so reading it could change
// nothing and would only need a grant on a Secret.
func Values(ctx context.Context, hr map[string]any, src Source) (Release, error) {
	var out Release
	spec, _ := hr["spec"].(map[string]any)
	namespace := ""
	if meta, ok := hr["metadata"].(map[string]any); ok {
		namespace, _ = meta["namespace"].(string)
	}
	refs, err := refsOf(spec)
	if err != nil {
		return out, err
	}
	result := map[string]any{}
	for _, r := range refs {
		if isPlatform(r) {
			out.Notes = append(out.Notes, fmt.Sprintf("spec.valuesFrom %s: not read; it holds the platform's \"_\" keys only, which the catalog does not read", r))
			continue
		}
		if src == nil {
			return out, fmt.Errorf("spec.valuesFrom %s: %w", r, ErrOffline)
		}
		data, version, err := src(ctx, r.Kind, namespace, r.Name)
		if apierrors.IsNotFound(err) && r.Optional {
			out.versions = append(out.versions, r.Kind+"/"+r.Name+"@absent")
			out.Notes = append(out.Notes, fmt.Sprintf("spec.valuesFrom %s: optional, and it does not exist", r))
			continue
		}
		if err != nil {
			return out, fmt.Errorf("spec.valuesFrom %s: %w", r, err)
		}
		out.versions = append(out.versions, r.Kind+"/"+r.Name+"@"+version)
		text, ok := data[r.key()]
		if !ok {
			if r.Optional {
				out.Notes = append(out.Notes, fmt.Sprintf("spec.valuesFrom %s: optional, and it holds no key %s", r, r.key()))
				continue
			}
			return out, fmt.Errorf("spec.valuesFrom %s: it holds no key %q (valuesKey)", r, r.key())
		}
		if r.TargetPath != "" {
			if err := setPath(result, r.TargetPath, string(text)); err != nil {
				return out, fmt.Errorf("spec.valuesFrom %s: targetPath %q: %v", r, r.TargetPath, err)
			}
			out.Read = append(out.Read, r)
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal(text, &m); err != nil {
			return out, fmt.Errorf("spec.valuesFrom %s: key %s is not YAML values: %v", r, r.key(), err)
		}
		result = merge(result, m)
		out.Read = append(out.Read, r)
	}
	if v, present := spec["values"]; present && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return out, fmt.Errorf("spec.values is not a map of values")
		}
		result = merge(result, m)
	}
	for k := range result {
		// Cozystack reserves the "_" keys for the values it injects
		// (cozystack-api drops them when it reads a release back:
		// filterInternalKeys in pkg/registry/apps/application/rest.go).
		if strings.HasPrefix(k, "_") {
			delete(result, k)
		}
	}
	out.Values = result
	return out, nil
}

// Refs are the spec.valuesFrom entries of a HelmRelease object (hr) that
// Values reads, in order: every one but Cozystack's platform Secret
// (cozystack-values without targetPath). They are what a reader of the
// release must watch to see its values change. A spec.valuesFrom that is
// not a list of entries with a kind ConfigMap or Secret and a name is an
// error, as it is to Values.
func Refs(hr map[string]any) ([]Ref, error) {
	spec, _ := hr["spec"].(map[string]any)
	refs, err := refsOf(spec)
	if err != nil {
		return nil, err
	}
	out := refs[:0]
	for _, r := range refs {
		if !isPlatform(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// isPlatform reports whether an entry is Cozystack's platform Secret,
// which Values never reads.
func isPlatform(r Ref) bool {
	return r.Kind == "Secret" && r.Name == platformValues && r.TargetPath == ""
}

// refsOf reads spec.valuesFrom.
func refsOf(spec map[string]any) ([]Ref, error) {
	raw, present := spec["valuesFrom"]
	if !present || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errors.New("spec.valuesFrom is not a list")
	}
	refs := make([]Ref, 0, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("spec.valuesFrom[%d] is not an object", i)
		}
		var r Ref
		r.Kind, _ = m["kind"].(string)
		r.Name, _ = m["name"].(string)
		r.ValuesKey, _ = m["valuesKey"].(string)
		r.TargetPath, _ = m["targetPath"].(string)
		r.Optional, _ = m["optional"].(bool)
		if r.Kind != "ConfigMap" && r.Kind != "Secret" {
			return nil, fmt.Errorf("spec.valuesFrom[%d]: kind %q is neither ConfigMap nor Secret", i, r.Kind)
		}
		if r.Name == "" {
			return nil, fmt.Errorf("spec.valuesFrom[%d]: no name", i)
		}
		refs = append(refs, r)
	}
	return refs, nil
}

// merge is b merged over a: maps key by key, anything else replaced.
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = merge(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// setPath sets text at a dotted path (a\.b escapes a dot), as Flux sets a
// targetPath: quoted text is a string; otherwise true, false and null are
// themselves and an integer a number, as Helm's --set reads them. An index
// (a[0]) is not read.
func setPath(values map[string]any, path, text string) error {
	var keys []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path) && path[i+1] == '.':
			cur.WriteByte('.')
			i++
		case c == '.':
			keys = append(keys, cur.String())
			cur.Reset()
		case c == '[':
			return errors.New("a list index is not read here; set the whole list from a values file")
		default:
			cur.WriteByte(c)
		}
	}
	keys = append(keys, cur.String())
	for _, k := range keys {
		if k == "" {
			return errors.New("an empty key")
		}
	}
	m := values
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = typed(text)
	return nil
}

// typed reads a targetPath's text as Helm's --set does.
func typed(text string) any {
	if len(text) >= 2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] {
		return text[1 : len(text)-1]
	}
	switch strings.ToLower(text) {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if text == "0" {
		return int64(0)
	}
	if len(text) > 0 && text[0] != '0' {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n
		}
	}
	return text
}
