package guard_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// TestReasonValueIsItsName: callers match reasons across processes (the
// CLI's JSON, events), so a reason's value is its constant's name. The
// constants are read from the package's source, so a new one cannot be
// left out.
func TestReasonValueIsItsName(t *testing.T) {
	files, err := filepath.Glob("*.go")
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
		for _, c := range reasonConstants(f) {
			n++
			if got := c.value; got != `"`+c.name+`"` {
				t.Errorf("reason %s has the value %s; a reason's value is its name", c.name, got)
			}
		}
	}
	if n < 26 {
		t.Errorf("found %d reason constants; the parse missed some", n)
	}
}

type constant struct{ name, value string }

// reasonConstants lists the exported constants of type Reason in f.
func reasonConstants(f *ast.File) []constant {
	var out []constant
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
			for i, n := range v.Names {
				if n.IsExported() {
					out = append(out, constant{n.Name, v.Values[i].(*ast.BasicLit).Value})
				}
			}
		}
	}
	return out
}

func TestReasonIsItsOwnErrorText(t *testing.T) {
	if got := guard.StorageClassMismatch.Error(); got != "StorageClassMismatch" {
		t.Errorf("Error() = %q", got)
	}
}
