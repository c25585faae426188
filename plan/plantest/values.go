package plantest

import (
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// Values is a drawn pool as its values, as a KubernetesNodes spec holds
// them, for whatif.Diff: plan.DecodePool reads them back to p's spec (a
// diskSize of "" is left out, which reads as the chart's 20Gi).
func Values(p plan.Pool) whatif.PoolValues {
	s := p.Spec
	spec := map[string]any{
		"cluster":      s.Cluster,
		"storageClass": s.StorageClass,
		"talos": map[string]any{
			"schematicID":         s.Talos.SchematicID,
			"version":             s.Talos.Version,
			"imageFactoryURL":     s.Talos.ImageFactoryURL,
			"installerRepository": s.Talos.InstallerRepository,
		},
	}
	if s.DiskSize != "" {
		spec["diskSize"] = s.DiskSize
	}
	if img := s.OSImage; img != nil {
		o := map[string]any{}
		if b := img.Builtin; b != nil {
			o["builtin"] = set(map[string]any{}, "schematicID", b.SchematicID, "version", b.Version)
		}
		if f := img.Factory; f != nil {
			o["factory"] = set(map[string]any{}, "schematicID", f.SchematicID, "version", f.Version, "imageFactoryURL", f.ImageFactoryURL)
		}
		spec["osImage"] = o
	}
	return whatif.PoolValues{Namespace: p.Namespace, Name: p.Name, Spec: spec}
}

// set sets each key to its value in m where the value is not "".
func set(m map[string]any, kv ...string) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

// PoolValues draws a pool as Pool does, as its values, with what else the
// KubevirtMachineTemplate holds drawn too, present or not: roles, the
// instance type, resources (both, or neither, in either spelling), GPUs,
// the serial console, and pod CPU limits and requests where the chart
// takes them (a pool sized by resources).
func (v Vocabulary) PoolValues() *rapid.Generator[whatif.PoolValues] {
	return rapid.Custom(func(t *rapid.T) whatif.PoolValues {
		pv := Values(v.Pool().Draw(t, "pool"))
		spec := pv.Spec.(map[string]any)
		if chance(t, "roles", 2) {
			spec["roles"] = rapid.SampledFrom([][]any{{}, {"ingress-nginx"}, {"ingress-nginx", "gpu"}}).Draw(t, "roleList")
		}
		if chance(t, "instanceType", 2) {
			spec["instanceType"] = rapid.SampledFrom([]any{"u1.large", "u1.medium", "", nil}).Draw(t, "instanceTypeValue")
		}
		if chance(t, "sized", 3) {
			spec["resources"] = map[string]any{
				"cpu":    rapid.SampledFrom([]any{2.0, "2", "500m", int64(4)}).Draw(t, "cpu"),
				"memory": rapid.SampledFrom([]any{"4Gi", 4294967296.0, "8Gi"}).Draw(t, "memory"),
			}
			if chance(t, "podCpuLimit", 3) {
				spec["podCpuLimit"] = rapid.SampledFrom([]any{"3", 4.0}).Draw(t, "podCpuLimitValue")
				if chance(t, "podCpuRequest", 2) {
					spec["podCpuRequest"] = rapid.SampledFrom([]any{"500m", 1.0}).Draw(t, "podCpuRequestValue")
				}
			}
		}
		if chance(t, "gpus", 4) {
			spec["gpus"] = []any{map[string]any{"name": "nvidia.com/AD102GL_L40S"}}
		}
		if chance(t, "logSerialConsole", 4) {
			spec["logSerialConsole"] = rapid.Bool().Draw(t, "logSerialConsoleValue")
		}
		return pv
	})
}
