package plantest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
)

// TestEveryReasonHasOneType: every reason package guard defines is a
// refusal's or a warning's, never both and never neither, so that a new
// reason cannot be left out of the properties' check. The constants are
// read from guard's source.
func TestEveryReasonHasOneType(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "guard", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reasonConstants(t, f) {
			n++
			if plantest.IsRefusalReason(r) == plantest.IsWarningReason(r) {
				t.Errorf("reason %s: refusal %t, warning %t; want exactly one", r, plantest.IsRefusalReason(r), plantest.IsWarningReason(r))
			}
		}
	}
	if n < 27 {
		t.Errorf("found %d reason constants; the parse missed some", n)
	}
	for _, r := range []guard.Reason{"", "Unknown", "storageClassMismatch"} {
		if plantest.IsRefusalReason(r) || plantest.IsWarningReason(r) {
			t.Errorf("%q is no reason of guard's", r)
		}
	}
}

// reasonConstants lists the values of the exported constants of type
// Reason in f.
func reasonConstants(t *testing.T, f *ast.File) []guard.Reason {
	var out []guard.Reason
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Reason" {
				continue
			}
			for i, name := range v.Names {
				if !name.IsExported() {
					continue
				}
				value, err := strconv.Unquote(v.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatalf("%s: %v", name.Name, err)
				}
				out = append(out, guard.Reason(value))
			}
		}
	}
	return out
}
