package plan_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPlanWritesNoText: the planner decides the disk and never writes the
// chart's text, which adapters/helm writes; nor does it reach into an
// adapter. A file of package plan that imports the text writer fails it,
// and so does one that imports any adapter.
func TestPlanWritesNoText(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasSuffix(path, "/internal/charttext") || strings.Contains(path, "kubernetes-worker-image/adapters/") {
				t.Errorf("%s imports %s: the chart's text is written in adapters/helm", f, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file of package plan was read")
	}
}
