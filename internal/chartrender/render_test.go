package chartrender_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cozystack/kubernetes-worker-image/internal/chartrender"
)

// testChart is a chart of one ConfigMap whose data are the cases below,
// each a value through one function.
func testChart(template string) fstest.MapFS {
	return fstest.MapFS{
		"Chart.yaml":             {Data: []byte("apiVersion: v2\nname: test\nversion: 0.1.0\n")},
		"values.yaml":            {Data: []byte("zero: 0\ndisabled: false\nempty: \"\"\nname: nm\nnested: {a: 1, b: 2}\nlist: [x, y]\n")},
		"files/f.txt":            {Data: []byte("line1\nline2")},
		"templates/_helpers.tpl": {Data: []byte(`{{- define "test.name" -}}{{ .Values.name }}-{{ .Release.Name }}{{- end -}}`)},
		"templates/NOTES.txt":    {Data: []byte("not an object: {{ .Release.Name }}")},
		"templates/cm.yaml":      {Data: []byte(template)},
	}
}

func renderData(t *testing.T, template string, set map[string]any) map[string]any {
	t.Helper()
	objs, err := chartrender.Render(testChart(template), chartrender.Release{Name: "r", Namespace: "ns", Service: "Helm"}, set)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	data, _, _ := unstructured.NestedMap(objs[0].Object, "data")
	return data
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: {{ .Release.Namespace }}}\ndata:\n"

func TestRenderFunctions(t *testing.T) {
	data := renderData(t, cm+`
  missing: "{{ .Values.nothing }}"
  missingNested: "{{ .Values.nested.nothing }}"
  zero: {{ .Values.zero | default "d" }}
  falsy: {{ .Values.disabled | default "d" }}
  empty: {{ .Values.empty | default "d" }}
  absent: {{ .Values.nothing | default "d" }}
  kept: {{ .Values.name | default "d" }}
  include: {{ include "test.name" . }}
  yaml: |-
    {{- toYaml .Values.nested | nindent 4 }}
  file: |-
    {{- .Files.Get "files/f.txt" | nindent 4 }}
  noFile: "{{ .Files.Get "files/none" }}"
  list: "{{ range list "a" "b" }}{{ . }}{{ end }}"
  chart: {{ .Chart.Name }}-{{ .Chart.Version }}
  service: {{ .Release.Service }}
`, nil)
	assert.Equal(t, map[string]any{
		"missing": "", "missingNested": "", "zero": "d", "falsy": "d", "empty": "d", "absent": "d", "kept": "nm",
		"include": "nm-r", "yaml": "a: 1\nb: 2", "file": "line1\nline2", "noFile": "", "list": "ab",
		"chart": "test-0.1.0", "service": "Helm",
	}, data, "as Helm renders them: a missing key is nothing, default takes over from an empty value")
}

// Values are merged as Helm merges --set: maps key by key, a nil deletes.
func TestRenderValues(t *testing.T) {
	data := renderData(t, cm+"  a: \"{{ .Values.nested.a }}\"\n  b: \"{{ .Values.nested.b }}\"\n  list: \"{{ .Values.list }}\"\n",
		map[string]any{"nested": map[string]any{"a": 3, "b": nil}, "list": []any{"z"}})
	assert.Equal(t, map[string]any{"a": "3", "b": "", "list": "[z]"}, data)
}

func TestRenderRequired(t *testing.T) {
	tpl := cm + "  v: {{ required \"name: give it\" .Values.name }}\n"
	_, err := chartrender.Render(testChart(tpl), chartrender.Release{}, map[string]any{"name": ""})
	var required *chartrender.RequiredError
	require.ErrorAs(t, err, &required)
	assert.Equal(t, "name: give it", required.Message)
	_, err = chartrender.Render(testChart(tpl), chartrender.Release{}, map[string]any{"name": nil})
	require.ErrorAs(t, err, &required, "a value deleted is missing")
	data := renderData(t, tpl, map[string]any{"name": false})
	assert.Equal(t, false, data["v"], "neighbour: false is a value, as Helm's required has it")
}

// Documents split as Helm splits them; empty ones and comments alone are
// no object, and NOTES.txt and defines render none.
func TestRenderDocuments(t *testing.T) {
	objs, err := chartrender.Render(testChart("---\n# only a comment\n---\n"+cm+"  a: b\n---\n\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: x}\n"),
		chartrender.Release{Namespace: "ns"}, nil)
	require.NoError(t, err)
	require.Len(t, objs, 2)
	assert.Equal(t, "ConfigMap", objs[0].GetKind())
	assert.Equal(t, "Secret", objs[1].GetKind())
	assert.Equal(t, "x", objs[1].GetNamespace())

	_, err = chartrender.Render(testChart("- a\n- b\n"), chartrender.Release{}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "templates/cm.yaml renders document 1, which is not an object")
	_, err = chartrender.Render(testChart("a: {{ .Values.name"), chartrender.Release{}, nil)
	assert.ErrorContains(t, err, "templates/cm.yaml", "a template that does not parse is named")
	_, err = chartrender.Render(fstest.MapFS{"Chart.yaml": {Data: []byte("name: x\n")}}, chartrender.Release{}, nil)
	assert.ErrorContains(t, err, "values.yaml", "a chart without values says so")
}

// Whole numbers decode as int64, as the API machinery decodes JSON, so
// the objects convert to their types.
func TestRenderNumbers(t *testing.T) {
	data := renderData(t, cm+"  num: {{ .Values.zero }}\n  f: 1.5\n", nil)
	assert.Equal(t, map[string]any{"num": int64(0), "f": 1.5}, data)
}
