package helm

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// poolShape is what the planner reads of the kubernetes-nodes chart's
// values (SPEC section 2).
var poolShape = shape{kind: object, fields: map[string]shape{
	"cluster":      {kind: text},
	"diskSize":     {kind: text},
	"storageClass": {kind: text},
	"osImage": {kind: object, fields: map[string]shape{
		"builtin": {kind: object, fields: map[string]shape{
			"schematicID": {kind: text},
			"version":     {kind: text},
		}},
		"factory": {kind: object, fields: map[string]shape{
			"schematicID":     {kind: text},
			"version":         {kind: text},
			"imageFactoryURL": {kind: text},
		}},
	}},
	"talos": {kind: object, chartDefault: true, fields: map[string]shape{
		"schematicID":         {kind: text},
		"version":             {kind: text},
		"imageFactoryURL":     {kind: text},
		"installerRepository": {kind: text},
	}},
}}

// catalogShape is the kubernetes-worker-image package's values (SPEC
// section 2).
var catalogShape = shape{kind: object, fields: map[string]shape{
	"enabled":         {kind: boolean},
	"imageFactoryURL": {kind: text},
	"storageClass":    {kind: text},
	"storage":         {kind: text},
	"images": {kind: objects, fields: map[string]shape{
		"schematicID":     {kind: text},
		"version":         {kind: text},
		"imageFactoryURL": {kind: text},
		"storage":         {kind: text},
		"storageClass":    {kind: text},
	}},
}}

// PoolSpec reads a kubernetes-nodes chart's values (a KubernetesNodes spec)
// with the chart's defaults: an absent key takes its default, "" keeps its
// meaning (SPEC section 9), and a null deletes the default as Helm does (a
// null storageClass is the cluster default, a null talos leaves every
// talos value empty). A number or boolean where a string belongs is taken
// as the chart's quote renders it (diskSize: 20 is "20"); a map or list
// there is refused guard.InvalidValue at its values path. For example {cluster: demo, osImage: {builtin: {}}}
// is the default flavor, cloned, at 20Gi on "replicated".
func PoolSpec(values map[string]any) (plan.PoolSpec, error) {
	return poolSpec(values, "pool values")
}

// Pool is PoolSpec for the KubernetesNodes namespace/name; its refusals name
// the pool.
func Pool(namespace, name string, values map[string]any) (plan.Pool, error) {
	spec, err := poolSpec(values, "pool "+namespace+"/"+name)
	return plan.Pool{Namespace: namespace, Name: name, Spec: spec}, err
}

func poolSpec(values map[string]any, subject string) (plan.PoolSpec, error) {
	var spec plan.PoolSpec
	err := decode(values, poolShape, subject, &spec)
	return spec, err
}

// CatalogValues reads the kubernetes-worker-image package's values with the
// chart's defaults: disabled unless enabled, the global imageFactoryURL,
// storageClass and storage, and images[] absent meaning the one default
// flavor while [] or null (Helm deletes the default) means none. A map or
// list where a string belongs is refused guard.InvalidValue at its values
// path, such as images[2].storage.
func CatalogValues(values map[string]any) (catalog.Values, error) {
	var v catalog.Values
	err := decode(values, catalogShape, "catalog", &v)
	return v, err
}

// decode checks values against s and decodes what s names into out, whose
// UnmarshalJSON applies the chart's defaults. On a refusal out holds the
// defaults.
func decode(values map[string]any, s shape, subject string, out json.Unmarshaler) error {
	c := guard.Collector{Subject: subject}
	clean, ok := readMap(values, s.fields, nil, &c)
	if !ok {
		clean = map[string]any{}
	}
	data, err := json.Marshal(clean)
	if err == nil {
		err = out.UnmarshalJSON(data)
	}
	if err != nil {
		// read admits only strings, booleans, maps and lists of them, which
		// encode and decode; keep a failure visible rather than lose it.
		c.Refuse(guard.InvalidValue, field.NewPath("values"), nil, "the values do not decode: %v", err)
	}
	return c.Err()
}
