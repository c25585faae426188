package computeplane

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// kind is the type a forwarded value must have, as the pool chart reads it.
type kind int

const (
	// text is a string.
	text kind = iota
	// scalar is a string or a number: a quantity, or a kubelet threshold
	// that may also be a percentage.
	scalar
	// count is a non-negative integer.
	count
	// texts is a list of strings.
	texts
	// object is a map whose allowlisted keys are in fields.
	object
	// objects is a list of maps whose allowlisted keys are in fields.
	objects
)

// shape is the allowlist of one value: its kind and, for maps, the keys
// that are forwarded.
type shape struct {
	kind   kind
	fields map[string]shape
}

// nodeGroupFields is every per-pool field forwarded to a pool release (SPEC section
// 7). Everything else a tenant writes in a node group is dropped: osImage by
// name, because the worker OS image is the operator's decision, never the
// tenant's; and the rest because a field nobody reviewed for a single-tenant
// cluster of untrusted code does not reach it.
var nodeGroupFields = map[string]shape{
	"minReplicas":  {kind: count},
	"maxReplicas":  {kind: count},
	"instanceType": {kind: text},
	"diskSize":     {kind: scalar},
	"storageClass": {kind: text},
	"roles":        {kind: texts},
	"resources": {kind: object, fields: map[string]shape{
		"cpu":    {kind: scalar},
		"memory": {kind: scalar},
	}},
	"gpus": {kind: objects, fields: map[string]shape{
		"name": {kind: text},
	}},
	"kubelet": {kind: object, fields: map[string]shape{
		"systemReservedMemory": {kind: scalar},
		"kubeReservedMemory":   {kind: scalar},
		"systemReservedCpu":    {kind: scalar},
		"kubeReservedCpu":      {kind: scalar},
		"evictionHardMemory":   {kind: scalar},
		"evictionSoftMemory":   {kind: scalar},
	}},
}

// forward returns the part of v that s allows, so that nothing outside the
// allowlist can reach a pool release. It warns DroppedField once per dropped
// key, at the outermost dropped key only, and refuses InvalidValue where v
// has a type the chart cannot read. A null value is not set, as Helm treats
// it: it is neither forwarded nor reported.
func forward(v any, s shape, fld *field.Path, c *guard.Collector) (any, bool) {
	switch s.kind {
	case text:
		if _, ok := v.(string); ok {
			return v, true
		}
	case scalar:
		if _, ok := v.(string); ok {
			return v, true
		}
		if _, ok := decimal(v); ok {
			return v, true
		}
	case count:
		if n, ok := integer(v); ok && n >= 0 {
			return v, true
		}
	case texts:
		return forwardList(v, s.kind, shape{kind: text}, fld, c)
	case object:
		if m, ok := v.(map[string]any); ok {
			return forwardMap(m, s.fields, fld, c)
		}
	case objects:
		return forwardList(v, s.kind, shape{kind: object, fields: s.fields}, fld, c)
	}
	refuseType(v, s.kind, fld, c)
	return nil, false
}

func forwardMap(m map[string]any, fields map[string]shape, fld *field.Path, c *guard.Collector) (map[string]any, bool) {
	out := make(map[string]any, len(m))
	valid := true
	for _, key := range slices.Sorted(maps.Keys(m)) {
		val := m[key]
		if val == nil {
			continue
		}
		s, allowed := fields[key]
		if !allowed {
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
	return out, valid
}

func forwardList(v any, k kind, item shape, fld *field.Path, c *guard.Collector) (any, bool) {
	list, ok := v.([]any)
	if !ok {
		refuseType(v, k, fld, c)
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
