package helm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	texttemplate "text/template"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// spec is a KubernetesNodes spec as Flux hands it to Helm: decoded JSON,
// every number a float64, with the values a Cozystack pool sets.
func spec(b *testing.B, osImage string) map[string]any {
	doc := `{"cluster":"demo","minReplicas":1,"maxReplicas":5,"instanceType":"u1.large","diskSize":"20Gi",
		"storageClass":"replicated","roles":["ingress-nginx"],"resources":{},"gpus":[],"kubelet":{},
		"version":"v1.35"` + osImage + `}`
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkEndToEnd is one pool from its values map to the disk-system
// text, as a renderer pays it: decode, plan against an indexed cluster (a
// realistic one: a large cluster's heap would make the garbage collector
// the figure), write the chart's text.
func BenchmarkEndToEnd(b *testing.B) {
	snap := state.NewSnapshot(fixtures.State(state.AllKinds, fixtures.Cluster()...))
	cat := fleet.DefaultCatalog()
	for name, osImage := range map[string]string{"http": "", "clone": `,"osImage":{"builtin":{}}`} {
		values := spec(b, osImage)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := plan.Plan(plan.DecodePool("tenant-demo", "demo-md0", values), cat, snap)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := helm.DiskText(res, helm.ChartIndent); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fragment is the pre-feature chart's disk-system entry restated from the
// chart's text in text/template, with the three sprig functions it calls
// (sprig's argument order: the piped value last): the bare template a
// renderer would otherwise run, measured beside the library in one binary.
var fragment = texttemplate.Must(texttemplate.New("disk-system").Funcs(texttemplate.FuncMap{
	"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
	"default": func(d, given any) any {
		switch v := given.(type) {
		case nil:
			return d
		case string:
			if v == "" {
				return d
			}
		case float64:
			if v == 0 {
				return d
			}
		case bool:
			if !v {
				return d
			}
		}
		return given
	},
	"quote": func(v any) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
}).Parse(`      - metadata:
          name: disk-system
          annotations:
            cdi.kubevirt.io/storage.usePopulator: "false"
        spec:
          source:
            http:
              url: {{ .Values.talos.imageFactoryURL | trimSuffix "/" }}/image/{{ .Values.talos.schematicID }}/{{ .Values.talos.version }}/openstack-amd64.raw.xz
          storage:
            resources:
              requests:
                storage: {{ .Values.diskSize | default "20Gi" | quote }}
            {{- with .Values.storageClass }}
            storageClassName: {{ . | quote }}
            {{- end }}
`))

// chartDefaults are the values.yaml defaults the fragment reads.
func chartDefaults() map[string]any {
	return map[string]any{
		"diskSize": "20Gi", "storageClass": "replicated",
		"talos": map[string]any{
			"schematicID":         plan.DefaultSchematicID,
			"version":             plan.DefaultVersion,
			"imageFactoryURL":     plan.DefaultImageFactoryURL,
			"installerRepository": plan.DefaultInstallerRepository,
		},
	}
}

// BenchmarkChartFragment is the bare fragment on the same values: Helm's
// coalescing of the values over the chart's defaults (maps merged key by
// key), then the template.
func BenchmarkChartFragment(b *testing.B) {
	values := spec(b, "")
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		merged := chartDefaults()
		talos := merged["talos"].(map[string]any)
		maps.Copy(merged, values)
		merged["talos"] = talos
		buf.Reset()
		if err := fragment.Execute(&buf, map[string]any{"Values": merged}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFleetText plans a fleet of 10,000 pools against a large
// cluster (1,000 goldens, 100,000 PVCs) and writes each planned pool's
// chart text: a renderer's full pass over a fleet, the state indexed once.
func BenchmarkFleetText(b *testing.B) {
	snap := state.NewSnapshot(fleet.State(fleet.Large))
	cat := catalog.Compile(fleet.Catalog(fleet.Large))
	pools := fleet.Pools(fleet.Large, 10000)
	b.ReportAllocs()
	for b.Loop() {
		for _, res := range plan.PlanAll(pools, cat, snap) {
			if _, err := helm.DiskText(res, helm.ChartIndent); err != nil {
				b.Fatal(err)
			}
		}
	}
}
