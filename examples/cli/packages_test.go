package cli_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPackageTableIsComplete: the README's package table has a row for
// every package an importer sees (every package of the module outside
// internal/ but a main package), and no row for one it does not: a row is
// such a package, or a folder of no Go package (the Helm chart).
func TestPackageTableIsComplete(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := tableRows(string(readme), "## Packages")
	pkgs := importable(t)
	for _, p := range pkgs {
		if !slices.Contains(rows, p) {
			t.Errorf("the README's package table has no row for %s", p)
		}
	}
	for _, r := range rows {
		goFiles, _ := filepath.Glob(filepath.Join(r, "*.go"))
		tests, _ := filepath.Glob(filepath.Join(r, "*_test.go"))
		if fi, err := os.Stat(r); err == nil && fi.IsDir() && len(goFiles) == len(tests) {
			continue // a folder of no Go package
		}
		if !slices.Contains(pkgs, r) {
			t.Errorf("the README's package table has a row for %s, which is no package an importer sees", r)
		}
	}
}

// tableRows are the packages the first cell of each row of the table
// under heading names, as [`path`](path).
func tableRows(page, heading string) []string {
	var rows []string
	in := false
	for line := range strings.SplitSeq(page, "\n") {
		switch {
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "## "):
			return rows
		case in && strings.HasPrefix(line, "| [`"):
			cell := strings.Split(line, "|")[1]
			name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(cell), "[`"), "`")
			rows = append(rows, name)
		}
	}
	return rows
}

// importable lists the module's packages outside internal/ whose package
// is not main, by their folder.
func importable(t *testing.T) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		base := d.Name()
		if path != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "internal") {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
			if err != nil {
				return err
			}
			if file.Name.Name != "main" {
				pkgs = append(pkgs, filepath.ToSlash(path))
			}
			break
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}
