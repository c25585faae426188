package computeplane

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
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
	values["cluster"] = clusterRelease
	return Pool{Name: name, ReleaseName: releaseName(name), Values: values}, ingressOf(group)
}

// checkPoolName refuses a key that cannot name a release: the key is part of
// the release's name and of its objects' names.
func checkPoolName(name string, fld *field.Path, c *findings.Collector) {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		c.Refuse(guard.InvalidPoolName, fld, name,
			"pool key %q is not a DNS-1123 label (%s); name the pool with lowercase letters, digits and '-', such as md0",
			name, strings.Join(errs, "; "))
	}
	if len(name) > maxPoolNameLength {
		c.Refuse(guard.PoolNameTooLong, fld, name,
			"pool key %q is %d characters; its release %q would be %d, over Helm's %d: shorten the key to at most %d characters",
			name, len(name), releaseName(name), len(releaseName(name)), maxReleaseNameLength, maxPoolNameLength)
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
// read it. What the templates read as unset (null, "", 0, false: the pool
// chart's default, or no resources) says nothing. A resources.cpu or
// memory (positive set) must be a positive quantity: InvalidQuantity. A
// diskSize renders as the templates print it, since the HTTP path gains no
// refusal the pre-feature templates did not have:
// one the values schemas refuse (a string off the quantity pattern, a
// fraction, true) is a warning that the pool release's install fails its
// schema validation, and one that is no positive quantity ("0", -5) a
// warning that the API server rejects the disk. A value of another type is
// refused by forward.
func checkQuantity(v any, example string, positive bool, fld *field.Path, c *findings.Collector) {
	s, isString := v.(string)
	switch {
	case chartvalues.Empty(v):
		return
	case isString:
	case positive && !chartvalues.Quantity.Accepts(v), !chartvalues.IsScalar(v):
		return
	default:
		var ok bool
		if s, ok = chartvalues.Decimal(v); !ok || len(s) > size.MaxLength {
			// A number of hundreds of digits (1e300) is the same
			// quantity in the exponent form Helm prints it in.
			s = chartvalues.Print(v)
		}
	}
	if isString && len(s) > size.MaxLength {
		// Refused unparsed: resource.ParseQuantity is quadratic in the
		// length, and no quantity needs as many characters.
		c.Add(guard.Refusals{size.TooLong(s, fld)})
		return
	}
	offSchema := !chartvalues.Quantity.Accepts(v) || isString && !chartvalues.IsQuantity(s)
	q, err := size.Quantity(s)
	sizeOK := err == nil && q.Sign() > 0
	switch {
	case positive && offSchema:
		c.Refuse(guard.InvalidQuantity, fld, v,
			"%q is not a quantity, and the values schema refuses it, so the release fails; write one such as %s", s, example)
	case positive && !sizeOK:
		c.Refuse(guard.InvalidQuantity, fld, v,
			"%q is not a positive Kubernetes quantity; write one such as %s", s, example)
	case offSchema:
		c.Warn(guard.InvalidQuantity, fld,
			"%s is %s: the kubernetes-nodes values schema refuses it (it takes a whole number of bytes or a quantity string), so the pool release Flux installs fails its schema validation; the pool chart's template renders it as given, as the wrapped chart's did; write a size such as %s", fld, chartvalues.Describe(v), example)
	case !sizeOK:
		c.Warn(guard.InvalidQuantity, fld,
			"%q is not a positive Kubernetes quantity; the pool chart renders it as given, as the chart always did, and the API server will reject the disk; write one such as %s", s, example)
	}
}

// ingressOf reads a group as the pool chart will run it: omitted roles are
// none, and an omitted maxReplicas is the chart's maxReplicas, 10; a
// null or a value that is no whole number, refused, is unknown. A
// maxReplicas under 1, negative too, scales to no ingress worker.
func ingressOf(group map[string]any) ingress {
	role := noIngress
	if raw, present := group["roles"]; present {
		roles, ok := chartvalues.List(raw)
		switch {
		case !ok:
			role = ingressUnknown
		case slices.Contains(roles, any(ingressRole)):
			role = servesIngress
		}
	}
	scales := servesIngress
	if v, present := group["maxReplicas"]; present {
		switch n, _ := chartvalues.Float(v); {
		case !chartvalues.Whole.Accepts(v):
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
