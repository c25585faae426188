package chartrender

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// Release is what a template reads of the release: .Release.Name,
// .Release.Namespace and .Release.Service (Helm's is "Helm"; a tool that
// renders the chart for kubectl names itself).
type Release struct {
	Name, Namespace, Service string
}

// Values are the chart's values.yaml.
func Values(chart fs.FS) (map[string]any, error) {
	raw, err := fs.ReadFile(chart, "values.yaml")
	if err != nil {
		return nil, fmt.Errorf("the chart's values: %w", err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(raw, &values); err != nil {
		return nil, fmt.Errorf("the chart's values.yaml: %w", err)
	}
	if values == nil {
		values = map[string]any{}
	}
	return values, nil
}

// Render renders the templates of chart (a folder holding Chart.yaml,
// values.yaml and templates/) for release r, with set merged over
// values.yaml as Helm merges --set and -f values (maps merge key by key,
// anything else replaces, a nil deletes the key), into the objects it
// writes, template by template in the order of their names, each in the
// order written. Templates whose name starts with "_", and NOTES.txt, are
// defines only, as in Helm.
//
// For example, a chart whose templates/cm.yaml is
//
//	apiVersion: v1
//	kind: ConfigMap
//	metadata: {name: {{ .Values.name | default "x" }}, namespace: {{ .Release.Namespace }}}
//
// renders, with set {"name": "y"}, one ConfigMap ns/y. A failed required
// is a *RequiredError; a document that is not a YAML object is an error
// naming its template.
func Render(chart fs.FS, r Release, set map[string]any) ([]*unstructured.Unstructured, error) {
	values, err := Values(chart)
	if err != nil {
		return nil, err
	}
	merge(values, set)
	meta, err := chartMetadata(chart)
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(chart, "templates/*")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	root := template.New(meta["Name"].(string)).Option("missingkey=zero")
	root.Funcs(funcs(root))
	for _, name := range names {
		text, err := fs.ReadFile(chart, name)
		if err != nil {
			return nil, err
		}
		if _, err := root.New(name).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("the chart's %s: %w", name, err)
		}
	}
	data := map[string]any{
		"Values":  values,
		"Release": map[string]any{"Name": r.Name, "Namespace": r.Namespace, "Service": r.Service},
		"Chart":   meta,
		"Files":   files{chart},
	}
	var objs []*unstructured.Unstructured
	for _, name := range names {
		if base := path.Base(name); strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		var b bytes.Buffer
		if err := root.ExecuteTemplate(&b, name, data); err != nil {
			return nil, err
		}
		// text/template writes "<no value>" for a missing key even with
		// missingkey=zero; Helm removes it.
		text := strings.ReplaceAll(b.String(), "<no value>", "")
		for i, doc := range documents.Split(text, -1) {
			obj, err := decode(doc)
			if err != nil {
				return nil, fmt.Errorf("the chart's %s renders document %d, which is not an object: %w", name, i+1, err)
			}
			if obj != nil {
				objs = append(objs, obj)
			}
		}
	}
	return objs, nil
}

// documents separates the YAML documents of a rendered template, as Helm
// splits a manifest (releaseutil.SplitManifests).
var documents = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// decode reads one document into an object, numbers as int64 where they
// are whole, as the API machinery decodes JSON; nil when the document is
// empty or only comments.
func decode(doc string) (*unstructured.Unstructured, error) {
	if strings.TrimSpace(doc) == "" {
		return nil, nil
	}
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return nil, err
	}
	if string(j) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := utiljson.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// chartMetadata is .Chart: Chart.yaml's fields by Helm's names.
func chartMetadata(chart fs.FS) (map[string]any, error) {
	raw, err := fs.ReadFile(chart, "Chart.yaml")
	if err != nil {
		return nil, fmt.Errorf("the chart's Chart.yaml: %w", err)
	}
	var m struct {
		APIVersion  string `json:"apiVersion"`
		Name        string `json:"name"`
		Version     string `json:"version"`
		AppVersion  string `json:"appVersion"`
		Description string `json:"description"`
		Type        string `json:"type"`
	}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("the chart's Chart.yaml: %w", err)
	}
	if m.Name == "" {
		return nil, errors.New("the chart's Chart.yaml names no chart (name)")
	}
	return map[string]any{"APIVersion": m.APIVersion, "Name": m.Name, "Version": m.Version,
		"AppVersion": m.AppVersion, "Description": m.Description, "Type": m.Type}, nil
}

// files are the chart's files as Helm's .Files serves them to a template.
type files struct{ chart fs.FS }

// Get is a file's text, "" when the chart has no such file.
func (f files) Get(name string) string {
	b, err := fs.ReadFile(f.chart, name)
	if err != nil {
		return ""
	}
	return string(b)
}

// merge merges src over dst as Helm coalesces values: maps key by key,
// a nil deletes, anything else replaces.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				merge(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
}
