package helm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	texttemplate "text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// spec is a KubernetesNodes spec as Flux hands it to Helm: decoded JSON,
// every number a float64, with the values a Cozystack pool sets.
func spec(tb testing.TB, osImage string) map[string]any {
	doc := `{"cluster":"demo","minReplicas":1,"maxReplicas":5,"instanceType":"u1.large","diskSize":"20Gi",
		"storageClass":"replicated","roles":["ingress-nginx"],"resources":{},"gpus":[],"kubelet":{},
		"version":"v1.35"` + osImage + `}`
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkEndToEnd is one pool from its values map to the disk-system
// text, as a renderer pays it: decode, plan against an indexed cluster (a
// realistic one: a large cluster's heap would make the garbage collector
// the figure), write the chart's text. PlanEntry is the renderer's call;
// Plan+DiskText builds the DataVolume object on the way.
func BenchmarkEndToEnd(b *testing.B) {
	snap := state.NewSnapshot(fixtures.State(state.AllKinds, fixtures.Cluster()...))
	cat := fleet.DefaultCatalog()
	for name, osImage := range map[string]string{"http": "", "clone": `,"osImage":{"builtin":{}}`} {
		values := spec(b, osImage)
		b.Run(name+"/PlanEntry", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := helm.PlanEntry(plan.DecodePool("tenant-demo", "demo-md0", values), cat, snap); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/Plan+DiskText", func(b *testing.B) {
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

// sprig is the three sprig functions the fragments call, restated
// (sprig's argument order: the piped value last).
var sprig = texttemplate.FuncMap{
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
}

// fragments are the disk-system entry as a template writes it, measured
// beside the library in one binary: the bare templates a renderer would
// otherwise run, with no guard. "http" is the pre-feature chart's entry
// restated from the chart's text; "clone" writes the chart's clone
// entry from the same values: the golden's name from osImage.builtin over
// talos.*, the pool's CAPI name from the release, the class as given
// (always written: the library writes the class its guards resolved, which
// for these values is the one given).
var fragments = map[string]*texttemplate.Template{
	"http": texttemplate.Must(texttemplate.New("disk-system").Funcs(sprig).Parse(`      - metadata:
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
`)),
	"clone": texttemplate.Must(texttemplate.New("disk-system").Funcs(sprig).Parse(`
{{- $b := .Values.osImage.builtin }}
{{- $golden := printf "talos-worker-%s-%s" ($b.schematicID | default .Values.talos.schematicID) ($b.version | default .Values.talos.version) }}
{{- "" }}      - metadata:
          name: disk-system
          annotations:
            kubernetes-worker-image.cozystack.io/golden: {{ $golden | quote }}
            kubernetes-worker-image.cozystack.io/pool: {{ printf "kubernetes-%s" .Release.Name | quote }}
        spec:
          source:
            pvc:
              namespace: cozy-public
              name: {{ $golden }}
          storage:
            resources:
              requests:
                storage: {{ .Values.diskSize | default "20Gi" | quote }}
            storageClassName: {{ .Values.storageClass | quote }}
`)),
}

// chartDefaults are the values.yaml defaults the fragment reads.
func chartDefaults() map[string]any {
	return map[string]any{
		"diskSize": "20Gi", "storageClass": "replicated",
		"talos": map[string]any{
			"schematicID":         chartdefaults.SchematicID,
			"version":             chartdefaults.Version,
			"imageFactoryURL":     chartdefaults.ImageFactoryURL,
			"installerRepository": chartdefaults.InstallerRepository,
		},
	}
}

// coalesce is what Helm hands a template: the values over the chart's
// defaults, merged key by key (talos too), and the release (named for the
// pool).
func coalesce(values map[string]any) map[string]any {
	merged := chartDefaults()
	talos := merged["talos"].(map[string]any)
	if given, ok := values["talos"].(map[string]any); ok {
		maps.Copy(talos, given)
	}
	maps.Copy(merged, values)
	merged["talos"] = talos
	return map[string]any{"Values": merged, "Release": map[string]any{"Name": "demo-md0"}}
}

// BenchmarkChartFragment is the bare fragments on the values
// BenchmarkEndToEnd plans: Helm's coalescing, then the template.
func BenchmarkChartFragment(b *testing.B) {
	for name, osImage := range map[string]string{"http": "", "clone": `,"osImage":{"builtin":{}}`} {
		values := spec(b, osImage)
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := fragments[name].Execute(&buf, coalesce(values)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFragmentsWriteWhatTheLibraryWrites: on the values the benchmarks
// use, each fragment writes the library's text byte for byte, so the two
// are measured doing the same work.
func TestFragmentsWriteWhatTheLibraryWrites(t *testing.T) {
	snap := state.NewSnapshot(fixtures.State(state.AllKinds, fixtures.Cluster()...))
	for name, osImage := range map[string]string{"http": "", "clone": `,"osImage":{"builtin":{}}`} {
		values := spec(t, osImage)
		res, err := plan.Plan(plan.DecodePool("tenant-demo", "demo-md0", values), fleet.DefaultCatalog(), snap)
		require.NoError(t, err, name)
		want, err := helm.DiskText(res, helm.ChartIndent)
		require.NoError(t, err, name)
		var buf bytes.Buffer
		require.NoError(t, fragments[name].Execute(&buf, coalesce(values)), name)
		assert.Equal(t, want, buf.String(), name)
	}
}

// BenchmarkFleetText plans a fleet of 10,000 pools against a large
// cluster (1,000 goldens, 100,000 PVCs) and writes each planned pool's
// chart text: a renderer's full pass over a fleet, the state indexed once.
// PlanEntries is the renderer's call; PlanAll+DiskText builds the
// DataVolume objects on the way.
func BenchmarkFleetText(b *testing.B) {
	snap := state.NewSnapshot(fleet.State(fleet.Large))
	cat := catalog.Compile(fleet.Catalog(fleet.Large))
	pools := fleet.Pools(fleet.Large, 10000)
	b.Run("PlanEntries", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, e := range helm.PlanEntries(pools, cat, snap) {
				if e.Outcome == plan.Planned && e.Text == "" {
					b.Fatal("a planned entry without text")
				}
			}
		}
	})
	b.Run("PlanAll+DiskText", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, res := range plan.PlanAll(pools, cat, snap) {
				if _, err := helm.DiskText(res, helm.ChartIndent); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
