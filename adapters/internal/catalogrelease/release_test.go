package catalogrelease

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

func release(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &m))
	return m
}

// objects is a Source over "<kind>/<name>" → data.
func objects(data map[string]map[string]string) Source {
	return func(_ context.Context, kind, namespace, name string) (map[string][]byte, string, error) {
		if namespace != "cozy-system" {
			return nil, "", errors.New("read in the wrong namespace " + namespace)
		}
		if kind == "Secret" && name == platformValues {
			return nil, "", errors.New("the platform's Secret is read")
		}
		d, ok := data[kind+"/"+name]
		if !ok {
			return nil, "", apierrors.NewNotFound(schema.GroupResource{Resource: kind}, name)
		}
		out := map[string][]byte{}
		for k, v := range d {
			out[k] = []byte(v)
		}
		return out, "1", nil
	}
}

const head = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: kubernetes-worker-image, namespace: cozy-system}\n"

func TestValuesMergeAsFlux(t *testing.T) {
	hr := release(t, head+`spec:
  valuesFrom:
  - {kind: Secret, name: cozystack-values}
  - {kind: ConfigMap, name: base}
  - {kind: ConfigMap, name: over, valuesKey: custom.yaml}
  - {kind: ConfigMap, name: missing, optional: true}
  - {kind: ConfigMap, name: base, valuesKey: nokey, optional: true}
  - {kind: Secret, name: path, valuesKey: cls, targetPath: images.note\.x}
  - {kind: Secret, name: path, valuesKey: flag, targetPath: enabled}
  values:
    storage: 8Gi
    imageFactoryURL: null
`)
	src := objects(map[string]map[string]string{
		"Secret/cozystack-values": {"values.yaml": "_cluster: {a: b}\n_namespace: {c: d}\n"},
		"ConfigMap/base":          {"values.yaml": "enabled: false\nstorage: 6Gi\nimageFactoryURL: https://f\nnested: {a: 1, b: 2}\n"},
		"ConfigMap/over":          {"custom.yaml": "nested: {b: 3}\nstorageClass: local\n"},
		"Secret/path":             {"cls": "'quoted'", "flag": "true"},
	})
	rel, err := Values(context.Background(), hr, src)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"enabled":         true,
		"storage":         "8Gi",
		"imageFactoryURL": nil,
		"storageClass":    "local",
		"nested":          map[string]any{"a": float64(1), "b": float64(3)},
		"images":          map[string]any{"note.x": "quoted"},
	}, rel.Values, "valuesFrom in order, spec.values over them (a null too), maps merged, the \"_\" keys dropped")
	assert.Len(t, rel.Read, 4, "the platform's Secret is not read")
	assert.Len(t, rel.Notes, 3, "the optional entries skipped and the platform's Secret are said")
}

func TestValuesRefusesWhatFluxRefuses(t *testing.T) {
	src := objects(map[string]map[string]string{"ConfigMap/base": {"values.yaml": "enabled: true\n"}})
	for name, tc := range map[string]struct{ spec, want string }{
		"missing object": {"valuesFrom: [{kind: ConfigMap, name: gone}]", "spec.valuesFrom ConfigMap gone: "},
		"missing key":    {"valuesFrom: [{kind: ConfigMap, name: base, valuesKey: other}]", `it holds no key "other"`},
		"other kind":     {"valuesFrom: [{kind: Bucket, name: base}]", `kind "Bucket" is neither ConfigMap nor Secret`},
		"index":          {"valuesFrom: [{kind: ConfigMap, name: base, targetPath: 'images[0]'}]", "a list index is not read"},
		"not values":     {"values: [1]", "spec.values is not a map"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Values(context.Background(), release(t, head+"spec:\n  "+tc.spec+"\n"), src)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestValuesOffline(t *testing.T) {
	hr := release(t, head+"spec:\n  valuesFrom: [{kind: Secret, name: cozystack-values}]\n  values: {enabled: true, _cluster: x}\n")
	rel, err := Values(context.Background(), hr, nil)
	require.NoError(t, err, "the platform's Secret holds only keys the catalog drops")
	assert.Equal(t, map[string]any{"enabled": true}, rel.Values)
	assert.Len(t, rel.Notes, 1)

	hr = release(t, head+"spec:\n  valuesFrom: [{kind: ConfigMap, name: catalog}]\n")
	_, err = Values(context.Background(), hr, nil)
	assert.ErrorIs(t, err, ErrOffline, "any other entry needs the cluster")
}

func TestIsHelmRelease(t *testing.T) {
	assert.True(t, IsHelmRelease(release(t, head)))
	assert.True(t, IsHelmRelease(map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2beta2", "kind": "HelmRelease"}))
	assert.False(t, IsHelmRelease(map[string]any{"enabled": true}))
	assert.False(t, IsHelmRelease(map[string]any{"apiVersion": "example.com/v1", "kind": "HelmRelease"}))
}

func TestTyped(t *testing.T) {
	for in, want := range map[string]any{"true": true, "FALSE": false, "null": nil, "0": int64(0), "12": int64(12), "012": "012", `"12"`: "12", "6Gi": "6Gi", "": ""} {
		assert.Equal(t, want, typed(in), "%q", in)
	}
}

// Refs are the entries Values reads, in order: the platform's Secret is
// left out, unless a targetPath makes it a value; a malformed list is the
// error Values gives.
func TestRefs(t *testing.T) {
	hr := release(t, `
metadata: {namespace: cozy-system, name: kubernetes-worker-image}
spec:
  valuesFrom:
  - {kind: Secret, name: cozystack-values}
  - {kind: ConfigMap, name: catalog-values, valuesKey: custom.yaml}
  - {kind: Secret, name: cozystack-values, targetPath: images}
  - {kind: Secret, name: catalog-secret, optional: true}
`)
	refs, err := Refs(hr)
	require.NoError(t, err)
	assert.Equal(t, []Ref{
		{Kind: "ConfigMap", Name: "catalog-values", ValuesKey: "custom.yaml"},
		{Kind: "Secret", Name: "cozystack-values", TargetPath: "images"},
		{Kind: "Secret", Name: "catalog-secret", Optional: true},
	}, refs)

	refs, err = Refs(release(t, "spec: {valuesFrom: [{kind: Secret, name: cozystack-values}]}"))
	require.NoError(t, err)
	assert.Empty(t, refs, "the platform's Secret alone: nothing to watch")
	_, err = Refs(release(t, "spec: {valuesFrom: [{kind: Deployment, name: x}]}"))
	assert.ErrorContains(t, err, "spec.valuesFrom[0]")
}
