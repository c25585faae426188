package chartrender

import (
	"bytes"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
)

// RequiredError is a value the chart requires that is missing or empty:
// Message is the chart's own, which names the value.
type RequiredError struct {
	Message string
}

func (e *RequiredError) Error() string { return e.Message }

// funcs are the functions of Helm's engine and of sprig that the chart's
// templates call, each as Helm defines it.
func funcs(root *template.Template) template.FuncMap {
	return template.FuncMap{
		"include": func(name string, data any) (string, error) {
			var b bytes.Buffer
			err := root.ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
		// Helm's toYaml writes "" for what it cannot marshal.
		"toYaml": func(v any) string {
			b, err := yaml.Marshal(v)
			if err != nil {
				return ""
			}
			return strings.TrimSuffix(string(b), "\n")
		},
		"nindent": func(n int, s string) string {
			pad := strings.Repeat(" ", n)
			return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
		},
		"default": func(d any, given ...any) any {
			if len(given) == 0 || chartvalues.Empty(given[0]) {
				return d
			}
			return given[0]
		},
		"required": func(msg string, v any) (any, error) {
			if s, ok := v.(string); v == nil || ok && s == "" {
				return v, &RequiredError{Message: msg}
			}
			return v, nil
		},
		"list": func(v ...any) []any { return v },
	}
}
