package invariants_test

import (
	"fmt"
	"strings"
	"text/template"
)

// oldChartDisk is the pre-feature kubernetes-nodes chart's disk-system
// entry, written again from SPEC section 3 as a Helm template, so that the
// property compares the planner with the chart and not with itself. Helm's
// functions are sprig's, with sprig's argument order: the piped value comes
// last.
const oldChartDisk = `      - metadata:
          name: disk-system
          annotations:
            cdi.kubevirt.io/storage.usePopulator: "false"
        spec:
          source:
            http:
              url: {{ .talos.imageFactoryURL | trimSuffix "/" }}/image/{{ .talos.schematicID }}/{{ .talos.version }}/openstack-amd64.raw.xz
          storage:
            resources:
              requests:
                storage: {{ .diskSize | default "20Gi" | quote }}
            {{- with .storageClass }}
            storageClassName: {{ quote . }}
            {{- end }}
`

var oldChart = template.Must(template.New("disk-system").Option("missingkey=error").Funcs(template.FuncMap{
	"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
	"default": func(d string, given any) string {
		if s, _ := given.(string); s != "" {
			return s
		}
		return d
	},
	// Helm's quote is sprig's: %q of the string.
	"quote": func(s string) string { return fmt.Sprintf("%q", s) },
}).Parse(oldChartDisk))

// oldValues are the values the pre-feature chart read.
type oldValues struct {
	SchematicID, Version, ImageFactoryURL string
	DiskSize, StorageClass                string
}

// renderOldChart renders the pre-feature disk-system entry.
func renderOldChart(v oldValues) string {
	var b strings.Builder
	err := oldChart.Execute(&b, map[string]any{
		"talos":        map[string]any{"schematicID": v.SchematicID, "version": v.Version, "imageFactoryURL": v.ImageFactoryURL},
		"diskSize":     v.DiskSize,
		"storageClass": v.StorageClass,
	})
	if err != nil {
		panic(err)
	}
	return b.String()
}

// oldChartRefuses is the one refusal the pre-feature chart had: a
// KubernetesNodes name that is not "<cluster>-<pool>", or no cluster.
func oldChartRefuses(cluster, name string) bool {
	pool, ok := strings.CutPrefix(name, cluster+"-")
	return cluster == "" || !ok || pool == ""
}
