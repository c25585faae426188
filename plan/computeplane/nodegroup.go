package computeplane

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

// ingress says whether a node group can run the cluster's ingress
// controller.
type ingress int

const (
	noIngress ingress = iota
	servesIngress
	// ingressUnknown is a group whose roles or maxReplicas the chart cannot
	// read: its InvalidValue refusal already stops the plan, and guessing
	// would add a MissingIngressPool that fixing the type clears.
	ingressUnknown
)

// planGroup turns one supplied node group into its pool release, recording
// the group's refusals and warnings under fld.
func planGroup(name string, raw any, fld *field.Path, c *findings.Collector) (Pool, ingress) {
	c.Subject = fmt.Sprintf("ComputePlane pool %q", name)
	checkPoolName(name, fld, c)
	group, ok := chartvalues.Map(raw)
	if !ok {
		chartvalues.RefuseType(c, raw, chartvalues.Object, fld)
		return Pool{}, ingressUnknown
	}
	values, _ := forwardMap(group, nodeGroupFields, fld, c)
	checkQuantity(group["diskSize"], "20Gi", fld.Child("diskSize"), c)
	if res, ok := chartvalues.Map(group["resources"]); ok {
		checkResources(res, fld.Child("resources"), c)
	}
	values["cluster"] = ClusterRelease
	return Pool{Name: name, ReleaseName: ReleaseName(name), Values: values}, ingressOf(group)
}

// checkPoolName refuses a key that cannot name a release: the key is part of
// the release's name and of its objects' names.
func checkPoolName(name string, fld *field.Path, c *findings.Collector) {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		c.Refuse(guard.InvalidPoolName, fld, name,
			"pool key %q is not a DNS-1123 label (%s); name the pool with lowercase letters, digits and '-', such as md0",
			name, strings.Join(errs, "; "))
	}
	if len(name) > MaxPoolNameLength {
		c.Refuse(guard.PoolNameTooLong, fld, name,
			"pool key %q is %d characters; its release %q would be %d, over Helm's %d: shorten the key to at most %d characters",
			name, len(name), ReleaseName(name), len(ReleaseName(name)), MaxReleaseNameLength, MaxPoolNameLength)
	}
}

// checkResources refuses resources that set only one of cpu and memory: the
// pool chart sizes a VM from resources only when both are set, and from its
// instanceType otherwise, so a lone cpu or memory is silently ignored.
func checkResources(res map[string]any, fld *field.Path, c *findings.Collector) {
	checkQuantity(res["cpu"], "2 or 500m", fld.Child("cpu"), c)
	checkQuantity(res["memory"], "4Gi", fld.Child("memory"), c)
	cpu, memory := isSet(res["cpu"]), isSet(res["memory"])
	if cpu == memory {
		return
	}
	set, missing := "cpu", "memory"
	if memory {
		set, missing = "memory", "cpu"
	}
	c.Refuse(guard.IncompleteResources, fld, res,
		"resources sets %s but not %s; set both, or neither to size the workers by instanceType", set, missing)
}

// checkQuantity refuses a value that is not a positive Kubernetes quantity.
// An empty string is not set, as the pool chart's default reads it; a value
// of another type is refused by forward.
func checkQuantity(v any, example string, fld *field.Path, c *findings.Collector) {
	s, ok := v.(string)
	if !ok {
		if s, ok = chartvalues.Decimal(v); !ok {
			return
		}
	}
	if s == "" {
		return
	}
	if q, err := resource.ParseQuantity(s); err == nil && q.Sign() > 0 {
		return
	}
	c.Refuse(guard.InvalidQuantity, fld, v,
		"%q is not a positive Kubernetes quantity; write one such as %s", s, example)
}

// isSet reports whether a value counts as set: Helm's default treats null and
// "" as unset.
func isSet(v any) bool { return v != nil && v != "" }

// ingressOf reads a group as the pool chart will run it: omitted roles are
// none, and an omitted maxReplicas is the chart's DefaultMaxReplicas.
func ingressOf(group map[string]any) ingress {
	role := noIngress
	if raw := group["roles"]; raw != nil {
		roles, ok := chartvalues.List(raw)
		switch {
		case !ok:
			role = ingressUnknown
		case slices.Contains(roles, any(IngressRole)):
			role = servesIngress
		}
	}
	scales := servesIngress
	if v := group["maxReplicas"]; v != nil {
		n, ok := chartvalues.Integer(v)
		switch {
		case !ok || n < 0:
			scales = ingressUnknown
		case n < 1:
			scales = noIngress
		}
	}
	switch {
	case role == noIngress || scales == noIngress:
		return noIngress
	case role == ingressUnknown || scales == ingressUnknown:
		return ingressUnknown
	}
	return servesIngress
}
