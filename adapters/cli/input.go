package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
)

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// readFile reads a named input; "-" is standard input. A file that cannot
// be read is unusable input.
func (a *app) readFile(path string) ([]byte, string, error) {
	if path == "-" {
		data, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, stdinName, unusable("read %s: %v", stdinName, err)
		}
		return data, stdinName, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, unusable("%v", err)
	}
	return data, path, nil
}

// documents decodes the Kubernetes objects of a file; a document that does
// not parse, or is not an object, is unusable input named by file and line.
func documents(name string, data []byte) ([]manifests.Document, error) {
	docs, err := manifests.Documents(name, bytes.NewReader(data))
	if err != nil {
		return nil, inputError(err)
	}
	return docs, nil
}

// inputError makes a decoder's error unusable input; its message already
// names the file and the line.
func inputError(err error) error {
	var me *manifests.Error
	if errors.As(err, &me) {
		return &exitError{code: ExitUnusable, err: err}
	}
	return unusable("%v", err)
}

// yamlLine is how the YAML parser places an error: only in its message.
var yamlLine = regexp.MustCompile(`\bline (\d+):`)

// values decodes a values file (one YAML document holding a map), as Helm
// reads values. A syntax error is unusable input named by file and line.
func values(name string, data []byte) (map[string]any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, unusable("%s:%d: %v (fix the YAML there)", name, line, err)
	}
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	}
	return nil, unusable("%s:1: the document is %s, not a map of values", name, describeValue(v))
}

func describeValue(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}
