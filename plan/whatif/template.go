package whatif

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// The KubevirtMachineTemplate of a pool is named by the sha256 of the
// kubernetes-nodes chart's kubevirtmachinetemplate define
// (templates/nodegroup.yaml), which renders far more than the disk: the
// instancetype or the resources, the roles, the GPUs, the serial console,
// the virt-launcher's resources, and two values of the platform's that
// every pool release merges from its tenant's cozystack-values Secret
// (_cluster): the ephemeral-storage allocation ratio and the global
// topology spread constraints. The pool's own values are read here as the
// define reads them; the platform's come from Platform.

// Platform is what the kubevirtmachinetemplate define reads of the
// platform's values: the _cluster map of the tenant's cozystack-values
// Secret, which Cozystack merges into every pool release. Without it the
// define's text, and so the template's name, is not known.
type Platform struct {
	cluster map[string]any
}

// NewPlatform reads the cozystack-values Secret's values (its values.yaml:
// {_cluster: {…}, _namespace: {…}}). Its _cluster must be a map: the chart
// fails to render without one.
func NewPlatform(cozystackValues map[string]any) (*Platform, error) {
	raw, ok := cozystackValues["_cluster"]
	if !ok {
		return nil, fmt.Errorf("the cozystack values hold no _cluster; give the values.yaml of a tenant's cozystack-values Secret, which holds _cluster and _namespace")
	}
	m, ok := chartvalues.Map(raw)
	if !ok {
		return nil, fmt.Errorf("_cluster is %s, not a map; give the values.yaml of a tenant's cozystack-values Secret", chartvalues.Describe(raw))
	}
	return &Platform{cluster: m}, nil
}

// defaultRatio is cozy-lib's ephemeral-storage allocation ratio when the
// platform sets none.
const defaultRatio = "40"

// chartPlatform is the platform's part of the define as the chart renders
// it for a platform that sets none of it (no constraints, the default
// ratio): what two renders of one platform are compared with when the
// platform is not known.
var chartPlatform = func() platformParts {
	r, _ := charttext.EphemeralRequest(40)
	return platformParts{ephemeralRequest: r, podResources: charttext.PodResources(r, nil, nil)}
}()

// platformParts are the platform's part of the define's text.
type platformParts struct {
	ephemeralRequest, constraints string
	// podResources are the pod's resources of a pool that sets no pod CPU
	// limit or request, most of them: written once.
	podResources string
}

// parts renders the platform's part of the define, or says why the chart
// cannot render it.
func (p *Platform) parts() (platformParts, string) {
	var out platformParts
	printed := defaultRatio
	if v, ok := p.cluster["ephemeral-storage-allocation-ratio"]; ok {
		if v == nil {
			return out, "the platform's _cluster.ephemeral-storage-allocation-ratio is null, which cozy-lib cannot divide by, so the chart fails to render"
		}
		printed = chartvalues.Print(v)
	}
	ratio, err := strconv.ParseFloat(printed, 64)
	if err != nil {
		ratio = 0 // sprig's float64 of what does not parse
	}
	req, ok := charttext.EphemeralRequest(ratio)
	if !ok {
		return out, fmt.Sprintf("the platform's _cluster.ephemeral-storage-allocation-ratio %q is no number cozy-lib can divide by, so the chart fails to render", printed)
	}
	out.ephemeralRequest, out.podResources = req, charttext.PodResources(req, nil, nil)
	sched, ok := p.cluster["scheduling"]
	if !ok || chartvalues.Empty(sched) {
		return out, ""
	}
	m, ok := chartvalues.Map(sched)
	if !ok {
		return out, fmt.Sprintf("the platform's _cluster.scheduling is %s, not a map, so the chart fails to render", chartvalues.Describe(sched))
	}
	raw := m["globalAppTopologySpreadConstraints"]
	if chartvalues.Empty(raw) {
		return out, ""
	}
	s, ok := raw.(string)
	if !ok {
		return out, fmt.Sprintf("the platform's _cluster.scheduling.globalAppTopologySpreadConstraints is %s, not the YAML text fromYaml reads, so the chart fails to render", chartvalues.Describe(raw))
	}
	c, err := charttext.Constraints(s)
	if err != nil {
		return out, fmt.Sprintf("the platform's _cluster.scheduling.globalAppTopologySpreadConstraints is not one YAML map (%v), and the chart writes fromYaml's error into the template", err)
	}
	out.constraints = c
	return out, ""
}

// templateValues are the define's inputs from a pool's own values, as the
// template sees them once Helm has merged them with the chart's defaults
// (an absent key takes the default, a null deletes it), or why the chart
// renders no template from them (its values schema refuses them).
func templateValues(spec any) (charttext.Template, podCPU, string) {
	var t charttext.Template
	var pod podCPU
	m, ok := chartvalues.Map(spec)
	if !ok {
		if spec != nil {
			return t, pod, "the pool's spec is not a map"
		}
		m = map[string]any{}
	}
	bad := func(key string, v any, want string) (charttext.Template, podCPU, string) {
		return t, pod, fmt.Sprintf("%s is %s, and the kubernetes-nodes values schema takes %s there, so the chart renders no template", key, chartvalues.Describe(v), want)
	}
	if v, present := m["roles"]; present && v != nil {
		l, ok := chartvalues.List(v)
		if !ok {
			return bad("roles", v, "a list of strings")
		}
		for i, r := range l {
			s, ok := r.(string)
			if !ok {
				return bad(fmt.Sprintf("roles[%d]", i), r, "a string")
			}
			t.Roles = append(t.Roles, s)
		}
	}
	t.InstanceType = defaultInstanceType
	if v, present := m["instanceType"]; present {
		s, ok := v.(string)
		if v != nil && !ok {
			return bad("instanceType", v, "a string")
		}
		t.InstanceType = s
	}
	if v := m["resources"]; v != nil {
		r, ok := chartvalues.Map(v)
		if !ok {
			return bad("resources", v, "a map")
		}
		var why string
		if t.CPU, why = quantityValue("resources.cpu", r["cpu"], true); why != "" {
			return t, pod, why
		}
		if t.Memory, why = quantityValue("resources.memory", r["memory"], true); why != "" {
			return t, pod, why
		}
	}
	if v := m["gpus"]; v != nil {
		l, ok := chartvalues.List(v)
		if !ok {
			return bad("gpus", v, "a list of maps")
		}
		for i, g := range l {
			gm, ok := chartvalues.Map(g)
			if !ok {
				return bad(fmt.Sprintf("gpus[%d]", i), g, "a map")
			}
			name, ok := gm["name"].(string)
			if !ok {
				return bad(fmt.Sprintf("gpus[%d].name", i), gm["name"], "a string")
			}
			t.GPUs = append(t.GPUs, name)
		}
	}
	if v := m["logSerialConsole"]; v != nil {
		b, ok := v.(bool)
		if !ok {
			return bad("logSerialConsole", v, "a boolean")
		}
		t.LogSerialConsole = b
	}
	for _, c := range []struct {
		key string
		out **string
	}{{"podCpuLimit", &pod.limit}, {"podCpuRequest", &pod.request}} {
		v := m[c.key]
		if v == nil {
			continue // absent, or null: the define tests kindIs "invalid"
		}
		s, why := quantityValue(c.key, v, false)
		if why != "" {
			return t, pod, why
		}
		*c.out = &s
	}
	if v, present := m["version"]; present && v == nil {
		return t, pod, "version is null: the chart's kubernetes.versionMap has no key for it and fails the release, so the chart renders no template"
	}
	return t, pod, sizingConflict(&t, pod)
}

// sizingConflict restates the kubernetes-nodes define's own failures of a
// pool's sizing (nodegroup.yaml, before the instanceType lookup): resources
// half set beside an instanceType, a pod CPU limit or request beside
// instanceType sizing, a negative one, a zero limit alone, a zero request
// beside a limit, a request above its limit. "" when none applies. What
// the define decides by looking the cluster up (an instanceType that does
// not exist) is not restated: the name is given as if it exists.
func sizingConflict(t *charttext.Template, pod podCPU) string {
	hasCPU, hasMem := t.CPU != "", t.Memory != ""
	sized := hasCPU && hasMem
	fails := func(format string, args ...any) string {
		return "the chart fails the release (" + fmt.Sprintf(format, args...) + "), so it renders no template"
	}
	switch {
	case t.InstanceType != "" && hasCPU != hasMem:
		return fails("set both resources.cpu and resources.memory, or neither")
	case pod.limit != nil && t.InstanceType != "" && !sized:
		return fails("podCpuLimit cannot be combined with instanceType sizing")
	case pod.request != nil && t.InstanceType != "" && !sized:
		return fails("podCpuRequest cannot be combined with instanceType sizing")
	}
	limit, request := cpuFloat(pod.limit), cpuFloat(pod.request)
	switch {
	case pod.limit != nil && limit < 0:
		return fails("podCpuLimit (%s) must not be negative", *pod.limit)
	case pod.request != nil && request < 0:
		return fails("podCpuRequest (%s) must not be negative", *pod.request)
	case pod.limit != nil && pod.request == nil && limit == 0:
		return fails("podCpuLimit 0 needs podCpuRequest 0 beside it")
	case pod.limit != nil && pod.request != nil && request == 0 && limit != 0:
		return fails("podCpuRequest 0 beside a podCpuLimit does not reserve nothing")
	case pod.limit != nil && pod.request != nil && request > limit:
		return fails("podCpuRequest (%s) exceeds podCpuLimit (%s)", *pod.request, *pod.limit)
	}
	return ""
}

// cpuFloat is a pod CPU value as cozy-lib.resources.toFloat reads it: the
// quantity's number with its suffix applied; 0 where there is none.
func cpuFloat(s *string) float64 {
	if s == nil {
		return 0
	}
	q, err := size.Quantity(*s)
	if err != nil {
		return 0
	}
	return q.AsApproximateFloat64()
}

// podCPU are a pool's podCpuLimit and podCpuRequest as toString prints
// them, nil where the pool does not set them.
type podCPU struct{ limit, request *string }

// defaultInstanceType is the kubernetes-nodes chart's instanceType.
const defaultInstanceType = "u1.medium"

// quantityValue reads an int-or-string quantity of the values schema as
// the template prints it. Where the define tests it with if (truthy),
// a value if treats as false reads "".
func quantityValue(key string, v any, truthy bool) (string, string) {
	if v == nil {
		return "", ""
	}
	if s, ok := v.(string); ok {
		if len(s) > size.MaxLength {
			return "", fmt.Sprintf("%s is %d characters long: a quantity is at most %d characters, and none is parsed past that, so the template is not rendered", key, len(s), size.MaxLength)
		}
		if !chartvalues.IsQuantity(s) {
			return "", fmt.Sprintf("%s is %s, which the kubernetes-nodes values schema's quantity pattern refuses, so the chart renders no template", key, chartvalues.Describe(v))
		}
		return s, ""
	}
	if _, ok := chartvalues.Integer(v); !ok {
		return "", fmt.Sprintf("%s is %s, and the kubernetes-nodes values schema takes a whole number or a quantity string there, so the chart renders no template", key, chartvalues.Describe(v))
	}
	if truthy && chartvalues.Empty(v) {
		return "", ""
	}
	return chartvalues.Print(v), ""
}

// template is the define for a planned pool: its own values, its disk
// and the platform's part, or why it cannot be rendered. The template's
// Disk is set whenever the pool is planned, also when its other values do
// not render.
func template(r plan.Result, spec any, cluster string, platform platformParts) (charttext.Template, string) {
	if r.Outcome != plan.Planned {
		return charttext.Template{}, "the pool is refused, so it renders no template"
	}
	d, err := charttext.DiskOf(r.Disk.Name, r.Disk.Annotations, &r.Disk.Spec, r.DiskSize, r.Source == plan.Clone)
	if err != nil {
		return charttext.Template{}, "its disk's source is not its plan's"
	}
	t, pod, why := templateValues(spec)
	t.Disk = charttext.DiskText(&d, charttext.Indent)
	if why != "" {
		return t, why
	}
	t.Namespace, t.Cluster = r.Namespace, cluster
	t.Group = strings.TrimPrefix(r.Name, cluster+"-")
	t.Constraints, t.PodResources = platform.constraints, platform.podResources
	if pod.limit != nil || pod.request != nil {
		t.PodResources = charttext.PodResources(platform.ephemeralRequest, pod.limit, pod.request)
	}
	return t, ""
}
