package computeplane

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

// shape is the allowlist of one value: the type the pool chart reads it as
// and, for maps, the keys that are forwarded.
type shape struct {
	kind   chartvalues.Kind
	fields map[string]shape
	// required: the values schema requires the key in its map.
	required bool
	// emptyUnset: "", and a scalar sprig's empty calls unset (0, false), is
	// not forwarded. The wrapped chart's default, with or and read it as
	// unset, and so does the pool chart's template, but the pool chart's
	// values schema refuses "" and false for a size, and it reads an empty
	// class as the cluster default: left out, the pool
	// chart's own default applies.
	emptyUnset bool
	// printed: the templates print any scalar here (sprig's default and
	// quote), so one the values schemas refuse the type of (a fraction, a
	// boolean) is forwarded, and checkQuantity warns of it.
	printed bool
}

// nodeGroupFields is every per-pool field forwarded to a pool release, each of
// the type the computeplane and kubernetes-nodes values schemas give it.
// Everything else a tenant writes in a node group is dropped: osImage by name,
// because the worker OS image is the operator's decision, never the tenant's;
// and the rest because a field nobody reviewed for a single-tenant cluster of
// untrusted code does not reach it.
var nodeGroupFields = map[string]shape{
	"minReplicas":  {kind: chartvalues.Whole},
	"maxReplicas":  {kind: chartvalues.Whole},
	"instanceType": {kind: chartvalues.Text},
	"diskSize":     {kind: chartvalues.Quantity, emptyUnset: true, printed: true},
	// The wrapped chart wrote `storageClass | default $.Values.storageClass`,
	// the application's replicated: an empty class was never the cluster
	// default, which it is to the pool chart. Left out, the pool chart's own
	// default, replicated, applies.
	"storageClass": {kind: chartvalues.Text, emptyUnset: true},
	"roles":        {kind: chartvalues.Texts},
	"resources": {kind: chartvalues.Object, fields: map[string]shape{
		"cpu":    {kind: chartvalues.Quantity, emptyUnset: true},
		"memory": {kind: chartvalues.Quantity, emptyUnset: true},
	}},
	"gpus": {kind: chartvalues.Objects, fields: map[string]shape{
		"name": {kind: chartvalues.Text, required: true},
	}},
	"kubelet": {kind: chartvalues.Object, fields: map[string]shape{
		"systemReservedMemory": {kind: chartvalues.Text},
		"kubeReservedMemory":   {kind: chartvalues.Text},
		"systemReservedCpu":    {kind: chartvalues.Text},
		"kubeReservedCpu":      {kind: chartvalues.Text},
		"evictionHardMemory":   {kind: chartvalues.Text},
		"evictionSoftMemory":   {kind: chartvalues.Text},
	}},
}

// forward returns the part of v that s allows, so that nothing outside the
// allowlist can reach a pool release. It warns DroppedField once per dropped
// key, at the outermost dropped key only, and refuses InvalidValue where v
// has a type the chart cannot read. Maps and lists come out as Helm holds
// them (map[string]any, []any), whatever Go types they came in.
func forward(v any, s shape, fld *field.Path, c *findings.Collector) (any, bool) {
	switch s.kind {
	case chartvalues.Text:
		// The pool chart's schema takes only a string here.
		if _, ok := v.(string); ok {
			return v, true
		}
	case chartvalues.Texts:
		return forwardList(v, s.kind, shape{kind: chartvalues.Text}, fld, c)
	case chartvalues.Object:
		if m, ok := chartvalues.Map(v); ok {
			return forwardMap(m, s.fields, fld, c)
		}
	case chartvalues.Objects:
		return forwardList(v, s.kind, shape{kind: chartvalues.Object, fields: s.fields}, fld, c)
	default:
		if _, isString := v.(string); s.kind.Accepts(v) || s.printed && (isString || chartvalues.IsScalar(v)) {
			return v, true
		}
	}
	chartvalues.RefuseType(c, v, s.kind, fld)
	return nil, false
}

// forwardMap forwards the allowlisted keys of m as the computeplane chart
// forwarded them: verbatim. Its values schema sees a group as written
// (Helm's coalescing deletes nulls only where the chart's values.yaml has
// the key, and it has no group), so a null is refused where the schema
// types the key, and skipped elsewhere; a required key left out is refused.
// "" is forwarded as written but where the shape says otherwise
// (storageClass, diskSize, resources.cpu and resources.memory: there "", 0
// and false are left out).
func forwardMap(m map[string]any, fields map[string]shape, fld *field.Path, c *findings.Collector) (map[string]any, bool) {
	out := make(map[string]any, len(m))
	valid := true
	for _, key := range slices.Sorted(maps.Keys(m)) {
		val := m[key]
		s, allowed := fields[key]
		switch {
		case val == nil && allowed:
			c.Refuse(guard.InvalidValue, fld.Child(key), nil,
				"%s is null, where %s belongs: the computeplane values schema refuses a null here, so the release fails; leave %s out, or set it", fld.Child(key), s.kind, key)
			valid = false
			continue
		case val == nil, s.emptyUnset && unsetScalar(val):
			continue
		case !allowed:
			c.Warn(guard.DroppedField, fld.Child(key),
				"not forwarded to the pool release, so it has no effect; a ComputePlane pool takes only %s here, and its worker OS image is the operator's",
				allowedList(fields))
			continue
		}
		fv, ok := forward(val, s, fld.Child(key), c)
		if !ok {
			valid = false
			continue
		}
		out[key] = fv
	}
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		if _, present := m[key]; !present && fields[key].required {
			c.Refuse(guard.InvalidValue, fld.Child(key), nil,
				"%s is not set: the computeplane values schema requires it, so the release fails; set %s", fld.Child(key), key)
			valid = false
		}
	}
	return out, valid
}

// unsetScalar reports whether v is a string, number or boolean that sprig's
// default reads as unset: "", 0 or false.
func unsetScalar(v any) bool {
	_, isString := v.(string)
	return (isString || chartvalues.IsScalar(v)) && chartvalues.Empty(v)
}

func forwardList(v any, k chartvalues.Kind, item shape, fld *field.Path, c *findings.Collector) (any, bool) {
	list, ok := chartvalues.List(v)
	if !ok {
		chartvalues.RefuseType(c, v, k, fld)
		return nil, false
	}
	out := make([]any, 0, len(list))
	valid := true
	for i, val := range list {
		fv, ok := forward(val, item, fld.Index(i), c)
		if !ok {
			valid = false
			continue
		}
		out = append(out, fv)
	}
	return out, valid
}

func allowedList(fields map[string]shape) string {
	return strings.Join(slices.Sorted(maps.Keys(fields)), ", ")
}
