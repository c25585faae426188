package computeplane

import (
	"fmt"
	"maps"
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
	if v, present := group["ephemeralStorage"]; present {
		// The wrapped chart failed a group that still had it, null or not
		// (`hasKey .group "ephemeralStorage"`): dropped, the size the tenant
		// meant would silently be diskSize's default.
		c.Refuse(guard.InvalidValue, fld.Child("ephemeralStorage"), v,
			"ephemeralStorage is no longer supported (Cozystack's migration 41 moves it to diskSize), and the computeplane chart fails a group that has it; set diskSize instead")
		group = maps.Clone(group)
		delete(group, "ephemeralStorage")
	}
	values, _ := forwardMap(group, nodeGroupFields, fld, c)
	checkQuantity(group["diskSize"], "20Gi", false, fld.Child("diskSize"), c)
	if res, ok := chartvalues.Map(group["resources"]); ok {
		checkResources(res, sizedByType(group), fld.Child("resources"), c)
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

// checkResources refuses resources that set only one of cpu and memory
// beside an instanceType, as the pool chart's template fails them: it sizes
// a VM from resources only when both are set, and KubeVirt rejects an
// instancetype beside one domain override. Set means what the template's
// `and` reads as true: not null, "", 0 or false.
func checkResources(res map[string]any, byType bool, fld *field.Path, c *findings.Collector) {
	checkQuantity(res["cpu"], "2 or 500m", true, fld.Child("cpu"), c)
	checkQuantity(res["memory"], "4Gi", true, fld.Child("memory"), c)
	cpu, memory := !chartvalues.Empty(res["cpu"]), !chartvalues.Empty(res["memory"])
	if cpu == memory || !byType {
		return
	}
	set, missing := "cpu", "memory"
	if memory {
		set, missing = "memory", "cpu"
	}
	c.Refuse(guard.IncompleteResources, fld, res,
		"resources sets %s but not %s; set both, or neither to size the workers by instanceType", set, missing)
}

// sizedByType reports whether a group's pool names an instanceType: an
// omitted one is the pool chart's u1.medium, an empty one none.
func sizedByType(group map[string]any) bool {
	t, present := group["instanceType"]
	return !present || !chartvalues.Empty(t)
}

// checkQuantity checks a quantity as the values schemas and the pool chart
// read it. A string the schemas' quantity pattern refuses ("" among them)
// fails the release: InvalidQuantity. A number, or a string of the pattern,
// that is not a positive quantity renders as given (0, which the chart's
// default reads as unset, aside): refused when positive is set, else a
// warning, since the pre-feature chart rendered it (a diskSize: the HTTP
// path gains no refusal). A value of another type is refused by forward.
func checkQuantity(v any, example string, positive bool, fld *field.Path, c *findings.Collector) {
	s, isString := v.(string)
	switch {
	case isString && !chartvalues.IsQuantity(s):
		c.Refuse(guard.InvalidQuantity, fld, v,
			"%q is not a quantity, and the values schema refuses it, so the release fails; write one such as %s", s, example)
		return
	case isString:
	case !chartvalues.Quantity.Accepts(v):
		return
	case chartvalues.Empty(v) && !positive:
		return
	default:
		s, _ = chartvalues.Decimal(v)
	}
	if q, err := resource.ParseQuantity(s); err == nil && q.Sign() > 0 {
		return
	}
	if positive {
		c.Refuse(guard.InvalidQuantity, fld, v,
			"%q is not a positive Kubernetes quantity; write one such as %s", s, example)
		return
	}
	c.Warn(guard.InvalidQuantity, fld,
		"%q is not a positive Kubernetes quantity; the pool chart renders it as given, as the chart always did, and the API server will reject the disk; write one such as %s", s, example)
}

// ingressOf reads a group as the pool chart will run it: omitted roles are
// none, and an omitted maxReplicas is the chart's DefaultMaxReplicas; a
// null, refused, is unknown.
func ingressOf(group map[string]any) ingress {
	role := noIngress
	if raw, present := group["roles"]; present {
		roles, ok := chartvalues.List(raw)
		switch {
		case !ok:
			role = ingressUnknown
		case slices.Contains(roles, any(IngressRole)):
			role = servesIngress
		}
	}
	scales := servesIngress
	if v, present := group["maxReplicas"]; present {
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
