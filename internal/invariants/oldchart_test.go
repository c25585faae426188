package invariants_test

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"text/template"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// The pre-feature kubernetes-nodes chart (cozystack/cozystack at
// 3c780acd417f, as Helm v4.1.1 renders it for Flux), said again here in
// the tests' own words, so that the properties compare the planner with the
// chart and not with itself: what Helm does to a pool's values before its
// templates run (coalescing them with the chart's values.yaml, then
// values.schema.json), the template failures on the values the planner
// reads, and the two fragments it reproduces, the disk-system entry and
// the installer image. Nothing here calls the library's decoder or
// internal/chartvalues. Each statement was checked against the real chart
// rendered with Helm's engine.

// chartDefaults are the chart's values.yaml, for the values these paths
// read; a fresh copy each call, since coalescing writes into it.
func chartDefaults() map[string]any {
	return map[string]any{
		"cluster":      "",
		"diskSize":     "20Gi",
		"storageClass": "replicated",
		"version":      "v1.35",
		"talos": map[string]any{
			"version":             "v1.13.6",
			"schematicID":         "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515",
			"imageFactoryURL":     "https://factory.talos.dev",
			"installerRepository": "factory.talos.dev/installer",
			"registryMirrors":     map[string]any{},
		},
	}
}

// helmCoalesce is what Helm makes of the values Flux hands it, before the
// schema and the templates see them (Helm's CoalesceValues): for each key
// the chart's values.yaml has, a key the user left out takes the default;
// a user's null deletes the key, default and all; a user's map is merged
// into a default map key by key (coalesceTable); any other user value wins
// as it is, even a scalar where the default is a map. Keys the chart does
// not have are left as the user wrote them, null included. The user's
// values are not modified.
func helmCoalesce(user map[string]any) map[string]any {
	v := copyValues(user).(map[string]any)
	for key, def := range chartDefaults() {
		u, set := v[key]
		switch {
		case !set:
			v[key] = def
		case u == nil:
			delete(v, key)
		default:
			um, userMap := u.(map[string]any)
			dm, defaultMap := def.(map[string]any)
			if userMap && defaultMap {
				coalesceTable(um, dm)
			}
		}
	}
	return v
}

// coalesceTable merges the defaults src into the user's map dst, one level
// down and on: a null the user wrote there deletes its key, whether or not
// the default has one; a key the user left out takes the default; maps on
// both sides merge again; otherwise the user's value stays, a map that
// meets a default scalar or a scalar that meets a default map alike.
func coalesceTable(dst, src map[string]any) {
	for k, v := range dst {
		if v == nil {
			src[k] = nil
		}
	}
	for k, sv := range src {
		dv, set := dst[k]
		switch {
		case set && dv == nil:
			delete(dst, k)
		case !set:
			dst[k] = sv
		default:
			dm, dstMap := dv.(map[string]any)
			sm, srcMap := sv.(map[string]any)
			if dstMap && srcMap {
				coalesceTable(dm, sm)
			}
		}
	}
}

func copyValues(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = copyValues(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = copyValues(val)
		}
		return out
	}
	return v
}

// schemaQuantity is values.schema.json's pattern for diskSize (a string;
// a number is held to "integer" instead): Kubernetes' quantity grammar.
var schemaQuantity = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)

// chartRefusal is why the chart's release fails for some values: for each
// values field at fault, the reasons the planner may refuse it with, the
// first of which it must give.
type chartRefusal map[string][]guard.Reason

// chartRefuses says where the chart fails the release of the coalesced
// values v of a KubernetesNodes named name, for the values the planner
// reads: values.schema.json first (every violation at once), then the
// templates' own failures. Nothing renders when it says anything.
//
//   - cluster: the schema's string; then the template fails an empty or
//     absent one ("kubernetes-nodes: .Values.cluster is required") and a
//     release name that is not kubernetes-nodes-<cluster>-<pool>. A
//     cluster that is no string names no pool either, so the planner may
//     say InvalidPoolName beside InvalidValue there.
//   - diskSize: the schema's anyOf integer or string, the string held to
//     the quantity pattern: a fraction, a boolean, a map, a list and a
//     string off the pattern ("" among them) are InvalidValue. A whole
//     number of any size or sign passes.
//   - storageClass: the schema's string.
//   - talos: the schema's object, requiring its four strings and its
//     registryMirrors map (a user's null deleted one, so it is missing); a
//     talos that is gone (the user's null) fails the templates on
//     .Values.talos.version.
func chartRefuses(v map[string]any, name string) chartRefusal {
	out := chartRefusal{}
	cluster, set := v["cluster"]
	c, isString := cluster.(string)
	switch {
	case set && !isString:
		out["cluster"] = []guard.Reason{guard.InvalidValue, guard.InvalidPoolName}
	case c == "":
		out["cluster"] = []guard.Reason{guard.InvalidPoolName}
	case !strings.HasPrefix("kubernetes-nodes-"+name, "kubernetes-nodes-"+c+"-") || name == c+"-":
		out["metadata.name"] = []guard.Reason{guard.InvalidPoolName}
	}
	if d, set := v["diskSize"]; set {
		switch x := d.(type) {
		case string:
			if !schemaQuantity.MatchString(x) {
				out["diskSize"] = []guard.Reason{guard.InvalidValue}
			}
		case float64:
			if x != math.Trunc(x) {
				out["diskSize"] = []guard.Reason{guard.InvalidValue}
			}
		default:
			out["diskSize"] = []guard.Reason{guard.InvalidValue}
		}
	}
	if sc, set := v["storageClass"]; set {
		if _, ok := sc.(string); !ok {
			out["storageClass"] = []guard.Reason{guard.InvalidValue}
		}
	}
	talos, set := v["talos"]
	tm, isMap := talos.(map[string]any)
	switch {
	case !set, !isMap:
		out["talos"] = []guard.Reason{guard.InvalidValue}
	default:
		for _, k := range []string{"schematicID", "version", "imageFactoryURL", "installerRepository"} {
			if _, ok := tm[k].(string); !ok {
				out["talos."+k] = []guard.Reason{guard.InvalidValue}
			}
		}
		if _, ok := tm["registryMirrors"].(map[string]any); !ok {
			out["talos.registryMirrors"] = []guard.Reason{guard.InvalidValue}
		}
	}
	return out
}

// oldChartDisk is the chart's disk-system entry, at its indentation inside
// the KubevirtMachineTemplate: the chart's expressions over its coalesced
// values. In the chart the class is `.group.storageClass | default
// $.Values.storageClass`, where the group's class is $.Values.storageClass
// itself, so the default changes nothing.
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
            storageClassName: {{ . | quote }}
            {{- end }}
`

// helmFuncs are the sprig functions the fragment calls, as sprig defines
// them; a piped value comes last.
var helmFuncs = template.FuncMap{
	// trimSuffix takes strings only: any other value fails the template.
	"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
	// default is the given value unless it is missing or empty.
	"default": func(d any, given ...any) any {
		if len(given) == 0 || sprigEmpty(given[0]) {
			return d
		}
		return given[0]
	},
	// quote is each value that is not nil, as text, in Go's double-quoted
	// form, joined by spaces: nil is nothing at all.
	"quote": func(vs ...any) string {
		var out []string
		for _, v := range vs {
			if v != nil {
				out = append(out, fmt.Sprintf("%q", sprigText(v)))
			}
		}
		return strings.Join(out, " ")
	},
}

// sprigEmpty is sprig's empty: no value at all, nil, a zero number of any
// kind, false, and an empty string, list or map; a struct never.
func sprigEmpty(v any) bool {
	r := reflect.ValueOf(v)
	if !r.IsValid() {
		return true
	}
	switch r.Kind() {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		return r.Len() == 0
	case reflect.Bool:
		return !r.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return r.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return r.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return r.Float() == 0
	case reflect.Complex64, reflect.Complex128:
		return r.Complex() == 0
	case reflect.Struct:
		return false
	}
	return r.IsNil()
}

// sprigText is sprig's strval: a string as it is, bytes as a string, an
// error or a Stringer as it says itself, anything else as %v prints it (a
// float64 in the shortest digits that read back, with an exponent from
// 1e+06 on and under 1e-04: 21474836480 is 2.147483648e+10, 123456 is
// 123456).
func sprigText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprintf("%v", v)
}

var oldChart = template.Must(template.New("disk-system").Option("missingkey=zero").Funcs(helmFuncs).Parse(oldChartDisk))

// chartDiskText renders the disk-system entry of coalesced values as the
// chart's kubevirtmachinetemplate define renders it (a key that is missing
// is nil), the text the KubevirtMachineTemplate's name hashes. Helm removes
// "<no value>" from the manifest it writes, after that text was hashed, so
// a value that holds those very characters is written without them; no
// value the properties draw does. Its error is the template's failure
// (trimSuffix on something else than a string, a field of a talos that is
// gone).
func chartDiskText(v map[string]any) (string, error) {
	var b strings.Builder
	if err := oldChart.Execute(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// chartInstaller is the installer image the chart's talos-reconcile Job
// applies: installerRepository with one trailing "/" trimmed, "/",
// schematicID, ":", version. The Job's template escapes "\", "$" and "`"
// with a backslash each, inside an unquoted heredoc that takes exactly
// those escapes back, so what is applied is the values as they are.
func chartInstaller(v map[string]any) string {
	t := v["talos"].(map[string]any)
	return strings.TrimSuffix(t["installerRepository"].(string), "/") + "/" + t["schematicID"].(string) + ":" + t["version"].(string)
}

// oldValues are the values the pre-feature chart read, as strings.
type oldValues struct {
	SchematicID, Version, ImageFactoryURL string
	DiskSize, StorageClass                string
}

// renderOldChart renders the pre-feature disk-system entry of string
// values as they stand once coalesced: "" is a value like any other
// (the size's default then reads it as unset).
func renderOldChart(v oldValues) string {
	text, err := chartDiskText(map[string]any{
		"talos":        map[string]any{"schematicID": v.SchematicID, "version": v.Version, "imageFactoryURL": v.ImageFactoryURL},
		"diskSize":     v.DiskSize,
		"storageClass": v.StorageClass,
	})
	if err != nil {
		panic(err)
	}
	return text
}

// oldChartRefuses is what the pre-feature chart refused of a pool's name:
// a KubernetesNodes name that is not "<cluster>-<pool>", or no cluster.
func oldChartRefuses(cluster, name string) bool {
	pool, ok := strings.CutPrefix(name, cluster+"-")
	return cluster == "" || !ok || pool == ""
}

// templatePrintsSize is whether the chart's template prints a size of the
// coalesced diskSize d, whatever its schema says: sprig's default and quote
// take any string, number or boolean (nil, "", 0 and false as the default
// 20Gi). A map or a list prints as Go prints one ("map[a:1]"), no size.
func templatePrintsSize(d any) bool {
	switch d.(type) {
	case nil, string, float64, bool:
		return true
	}
	return false
}
