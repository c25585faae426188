package apisurface

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// surface is the exported API of the module's importable packages: one
// line a name, sorted, and the counts of top-level names and of methods
// and fields.
type surface struct {
	lines    []string
	topLevel int
	members  int
}

// read walks the module at root and lists the exported API of every package
// an importer can import: not internal, not a main package, not a test.
func read(root, module string) (surface, error) {
	var s surface
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "internal" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	fset := token.NewFileSet()
	for dir, files := range dirs {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return s, err
		}
		pkg := module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		var parsed []*ast.File
		for _, f := range files {
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				return s, err
			}
			if af.Name.Name == "main" {
				parsed = nil
				break
			}
			parsed = append(parsed, af)
		}
		for _, af := range parsed {
			s.add(fset, strings.TrimPrefix(pkg, module+"/"), af)
		}
	}
	sort.Strings(s.lines)
	return s, nil
}

func (s *surface) add(fset *token.FileSet, pkg string, f *ast.File) {
	text := func(n ast.Node) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	top := func(format string, a ...any) {
		s.topLevel++
		s.lines = append(s.lines, pkg+": "+fmt.Sprintf(format, a...))
	}
	member := func(format string, a ...any) {
		s.members++
		s.lines = append(s.lines, pkg+": "+fmt.Sprintf(format, a...))
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				top("func %s%s", d.Name.Name, strings.TrimPrefix(text(d.Type), "func"))
				continue
			}
			recv := receiver(d.Recv.List[0].Type)
			if ast.IsExported(recv) {
				member("method (%s) %s%s", recv, d.Name.Name, strings.TrimPrefix(text(d.Type), "func"))
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					if !sp.Name.IsExported() {
						continue
					}
					s.typeSpec(pkg, sp, text, top, member)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.IsExported() {
							top("%s %s", d.Tok, n.Name)
						}
					}
				}
			}
		}
	}
}

func (s *surface) typeSpec(pkg string, sp *ast.TypeSpec, text func(ast.Node) string, top, member func(string, ...any)) {
	switch t := sp.Type.(type) {
	case *ast.StructType:
		top("type %s struct", sp.Name.Name)
		for _, fl := range t.Fields.List {
			for _, n := range fl.Names {
				if n.IsExported() {
					member("field %s.%s %s", sp.Name.Name, n.Name, text(fl.Type))
				}
			}
			if len(fl.Names) == 0 && ast.IsExported(receiver(fl.Type)) {
				member("field %s.%s (embedded)", sp.Name.Name, text(fl.Type))
			}
		}
	case *ast.InterfaceType:
		top("type %s interface", sp.Name.Name)
		for _, m := range t.Methods.List {
			for _, n := range m.Names {
				if n.IsExported() {
					member("method %s.%s%s", sp.Name.Name, n.Name, strings.TrimPrefix(text(m.Type), "func"))
				}
			}
			if len(m.Names) == 0 {
				member("method %s.(%s)", sp.Name.Name, text(m.Type))
			}
		}
	default:
		alias := ""
		if sp.Assign.IsValid() {
			alias = "= "
		}
		top("type %s %s%s", sp.Name.Name, alias, text(sp.Type))
	}
}

// receiver is the name of a receiver's or embedded field's type.
func receiver(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiver(t.X)
	case *ast.IndexExpr:
		return receiver(t.X)
	case *ast.IndexListExpr:
		return receiver(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// moduleRoot is the folder of go.mod above dir, and the module's path.
func moduleRoot(dir string) (string, string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if m, ok := strings.CutPrefix(line, "module "); ok {
					return dir, strings.TrimSpace(m), nil
				}
			}
			return "", "", fmt.Errorf("%s/go.mod names no module", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("no go.mod above the test's folder")
		}
		dir = parent
	}
}
