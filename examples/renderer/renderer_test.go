package renderer_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/examples/renderer"
	"github.com/cozystack/kubernetes-worker-image/guard"
	example "github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// preFeatureTemplate is the pre-feature kubernetes-nodes chart's
// dataVolumeTemplates, as its KubevirtMachineTemplate template held it:
// a copy kept here, so that the renderer is compared with the chart and not
// with the library's own idea of it.
const preFeatureTemplate = `      dataVolumeTemplates:
      - metadata:
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
`

// chartDefaults are the pre-feature chart's values.yaml, for the values the
// template reads.
const chartDefaults = `
diskSize: 20Gi
storageClass: replicated
talos:
  schematicID: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515
  version: v1.13.6
  imageFactoryURL: https://factory.talos.dev
  installerRepository: factory.talos.dev/installer
`

// Helm's functions are sprig's, with sprig's argument order: the piped
// value comes last.
var preFeature = template.Must(template.New("dataVolumeTemplates").Funcs(template.FuncMap{
	"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
	"default": func(d string, given any) any {
		if s, ok := given.(string); ok && s == "" || given == nil {
			return d
		}
		return given
	},
	"quote": func(v any) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
}).Parse(preFeatureTemplate))

// renderPreFeature fills the pre-feature template the way Helm did: the
// pool's values coalesced over the chart's values.yaml, maps merged key by
// key, a value the pool sets winning over the default.
func renderPreFeature(t *testing.T, values map[string]any) string {
	t.Helper()
	var defaults map[string]any
	if err := yaml.Unmarshal([]byte(chartDefaults), &defaults); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := preFeature.Execute(&b, map[string]any{"Values": coalesce(values, defaults)}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// coalesce is Helm's coalescing of user values over a chart's defaults, for
// values without nulls.
func coalesce(values, defaults map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range defaults {
		out[k] = v
	}
	for k, v := range values {
		dm, dok := out[k].(map[string]any)
		vm, vok := v.(map[string]any)
		if dok && vok {
			out[k] = coalesce(vm, dm)
			continue
		}
		out[k] = v
	}
	return out
}

// values reads a pool's values from YAML, as Helm holds them.
func values(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// walkthrough is a Renderer over the walkthrough's catalog and cluster
// (examples/cli).
func walkthrough(t *testing.T) renderer.Renderer {
	t.Helper()
	rr, err := manifests.Read(example.StateFile, bytes.NewReader(example.State))
	st := rr.State
	if err != nil {
		t.Fatal(err)
	}
	var cv map[string]any
	if err := yaml.Unmarshal(example.Catalog, &cv); err != nil {
		t.Fatal(err)
	}
	cat := catalog.Compile(catalog.DecodeValues(cv))
	if rs := cat.Unreadable(); len(rs) > 0 {
		t.Fatalf("the walkthrough's catalog reads: %v", rs)
	}
	return renderer.Renderer{Catalog: cat, State: state.NewSnapshot(st)}
}

// The template above, filled with the chart's defaults, is the one copy of
// the pre-feature text every test compares with (internal/fixtures): the
// re-statement and the copy cannot drift apart.
func TestPreFeatureTemplateIsTheChartText(t *testing.T) {
	want := strings.Repeat(" ", helm.ChartIndent) + "dataVolumeTemplates:\n" + fixtures.PreFeatureDiskSystem
	if got := renderPreFeature(t, values(t, "cluster: demo")); got != want {
		t.Errorf("-want\n%s+got\n%s", want, got)
	}
	want = strings.Repeat(" ", helm.ChartIndent) + "dataVolumeTemplates:\n" + fixtures.PreFeature(
		"https://factory.example.com/image/abc/v1.10.0/openstack-amd64.raw.xz", "51200Mi", "")
	got := renderPreFeature(t, values(t, "{cluster: demo, diskSize: 51200Mi, storageClass: '', talos: {schematicID: abc, version: v1.10.0, imageFactoryURL: 'https://factory.example.com/'}}"))
	if got != want {
		t.Errorf("-want\n%s+got\n%s", want, got)
	}
}

func TestPreFeatureIdentity(t *testing.T) {
	cases := map[string]struct {
		reason string
		values string
		// preFeature is the values the pre-feature chart got, when they
		// differ from values (it had no osImage).
		preFeature string
		warn       []fixtures.Finding
		// onCluster is the warnings on the walkthrough cluster, when they
		// differ from warn: the HTTP path warns of a disk CDI cannot
		// render there, and still renders it.
		onCluster []fixtures.Finding
	}{
		"chart defaults": {
			reason: "the chart's defaults render as they always did",
			values: "cluster: demo",
		},
		"cluster default class": {
			reason: `storageClass "" leaves storageClassName out: the cluster picks`,
			values: "cluster: demo\nstorageClass: ''",
		},
		"other class": {
			reason: "the class goes through Helm's quote",
			values: "cluster: demo\nstorageClass: local",
		},
		"class to escape": {
			reason:    "Helm's quote escapes as Go's %q does",
			values:    `{cluster: demo, storageClass: "a\"b"}`,
			onCluster: []fixtures.Finding{{Reason: guard.StorageClassNotFound, Field: "storageClass"}},
		},
		"disk size": {
			reason: "the size is rendered as given, not normalised",
			values: "cluster: demo\ndiskSize: 51200Mi",
		},
		"zero disk size": {
			reason: `diskSize "0" is set (a quoted 0 is no empty value to the chart's default), and rendered as the chart did, with a warning`,
			values: "cluster: demo\ndiskSize: '0'",
			warn:   []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "diskSize"}},
		},
		"malformed disk size": {
			reason: "a size the API server rejects, of the values schema's quantity pattern, is rendered as the chart did, with a warning",
			values: "cluster: demo\ndiskSize: -20Gi",
			warn:   []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "diskSize"}},
		},
		"talos flavor": {
			reason: "another schematic, version and factory, one trailing slash trimmed",
			values: "cluster: demo\ntalos: {schematicID: 376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba, version: v1.10.0, imageFactoryURL: 'https://factory.example.com/'}",
		},
		"factory with two slashes": {
			reason: "only one trailing slash is trimmed, as trimSuffix does",
			values: "cluster: demo\ntalos: {imageFactoryURL: 'https://factory.example.com//'}",
		},
		"empty talos version": {
			reason: "talos.* of a pool without osImage render as the chart rendered them, even empty, with a warning",
			values: "cluster: demo\ntalos: {version: ''}",
			warn:   []fixtures.Finding{{Reason: guard.InvalidVersion, Field: "talos.version"}},
		},
		"empty factory override": {
			reason:     "osImage.factory: {} renders exactly like an absent osImage",
			values:     "cluster: demo\nosImage: {factory: {}}",
			preFeature: "cluster: demo",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			old := tc.values
			if tc.preFeature != "" {
				old = tc.preFeature
			}
			want := renderPreFeature(t, values(t, old))
			for state, r := range map[string]renderer.Renderer{"offline": {}, "walkthrough cluster": walkthrough(t)} {
				got, warnings, err := r.DataVolumeTemplates("tenant-demo", "demo-md0", values(t, tc.values))
				if err != nil {
					t.Fatalf("%s (%s): refused: %v", tc.reason, state, err)
				}
				if got != want {
					t.Errorf("%s (%s): text differs from the pre-feature chart's\n-want\n%s+got\n%s", tc.reason, state, want, got)
				}
				wantWarn := tc.warn
				if tc.onCluster != nil && state == "walkthrough cluster" {
					wantWarn = tc.onCluster
				}
				if got := fixtures.Warned(warnings); !reflect.DeepEqual(got, wantWarn) {
					t.Errorf("%s (%s): warnings %v, want %v", tc.reason, state, got, wantWarn)
				}
			}
		})
	}
}

// cloneBlock is the dataVolumeTemplates of a builtin pool demo-md0 on the
// golden's class.
const cloneBlock = `      dataVolumeTemplates:
      - metadata:
          name: disk-system
          annotations:
            kubernetes-worker-image.cozystack.io/golden: "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6"
            kubernetes-worker-image.cozystack.io/pool: "kubernetes-demo-md0"
        spec:
          source:
            pvc:
              namespace: cozy-public
              name: talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6
          storage:
            resources:
              requests:
                storage: "20Gi"
            storageClassName: "replicated"
`

func TestClone(t *testing.T) {
	r := walkthrough(t)
	cases := map[string]struct {
		reason string
		values string
		want   string
		refuse []fixtures.Finding
	}{
		"builtin": {
			reason: "a builtin pool renders the clone of its golden",
			values: "cluster: demo\nosImage: {builtin: {}}",
			want:   cloneBlock,
		},
		"frozen class": {
			reason: `storageClass "" writes the class the guards compared, read from the pool's cloned disks`,
			values: "cluster: demo\nstorageClass: ''\nosImage: {builtin: {}}",
			want:   cloneBlock,
		},
		"other class": {
			reason: "a disk on another class than its golden's renders nothing",
			values: "cluster: demo\nstorageClass: local\nosImage: {builtin: {}}",
			refuse: []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "storageClass"}},
		},
		"no golden": {
			reason: "a flavor the catalog does not hold renders nothing, never an HTTP import",
			values: "cluster: demo\nosImage: {builtin: {version: v1.9.9}}",
			refuse: []fixtures.Finding{{Reason: guard.GoldenNotInCatalog, Field: "osImage.builtin"}},
		},
		"wrong type": {
			reason: "a value of the wrong type is refused at its values path",
			values: "cluster: demo\nosImage: {builtin: {version: [1.13]}}",
			refuse: []fixtures.Finding{{Reason: guard.InvalidValue, Field: "osImage.builtin.version"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, warnings, err := r.DataVolumeTemplates("tenant-demo", "demo-md0", values(t, tc.values))
			if got != tc.want {
				t.Errorf("%s: text\n-want\n%s+got\n%s", tc.reason, tc.want, got)
			}
			if got != "" && got == renderPreFeature(t, values(t, "cluster: demo")) {
				t.Errorf("%s: a clone rendered as the HTTP import", tc.reason)
			}
			if got := fixtures.Refused(err); !reflect.DeepEqual(got, tc.refuse) {
				t.Errorf("%s: refusals %v, want %v", tc.reason, got, tc.refuse)
			}
			var rf *guard.Refusal
			if tc.refuse != nil && !errors.As(err, &rf) {
				t.Errorf("%s: errors.As finds no *guard.Refusal in %v", tc.reason, err)
			}
			if len(warnings) != 0 {
				t.Errorf("%s: no warning on the walkthrough's cluster, got %v", tc.reason, warnings)
			}
		})
	}
}
