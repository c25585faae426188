package apisurface

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "write the module's exported API to testdata/api.txt")

const golden = "testdata/api.txt"

// TestExportedAPIIsReviewed fails on any exported name, method or field
// added, removed or changed in an importable package without the golden
// list being written again on purpose.
func TestExportedAPIIsReviewed(t *testing.T) {
	root, module, err := moduleRoot(".")
	require.NoError(t, err)
	s, err := read(root, module)
	require.NoError(t, err)
	got := fmt.Sprintf("# %d top-level names, %d methods and fields\n%s\n", s.topLevel, s.members, strings.Join(s.lines, "\n"))
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "write it with: go test ./internal/apisurface -update")
	if string(want) == got {
		return
	}
	wantLines, gotLines := set(string(want)), set(got)
	var added, removed []string
	for l := range gotLines {
		if !wantLines[l] {
			added = append(added, "+ "+l)
		}
	}
	for l := range wantLines {
		if !gotLines[l] {
			removed = append(removed, "- "+l)
		}
	}
	t.Fatalf("the exported API changed; review it, then run go test ./internal/apisurface -update:\n%s\n%s",
		strings.Join(removed, "\n"), strings.Join(added, "\n"))
}

// TestSurfaceSeesEveryKind checks the reader on a package of its own
// making: a change that stopped listing methods, fields or aliases would
// let them grow unseen.
func TestSurfaceSeesEveryKind(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("go.mod", "module example.com/m\n")
	write("p/p.go", `package p
type T struct{ A int; b int }
func (T) M() {}
func (T) m() {}
type I interface{ N() error }
type Alias = T
const C = 1
var V, w = 1, 2
func F(x int) string { return "" }
func f() {}
`)
	write("internal/q/q.go", "package q\nfunc Hidden() {}\n")
	write("cmd/x/main.go", "package main\nfunc Exported() {}\nfunc main() {}\n")
	write("p/p_test.go", "package p\nfunc TestX() {}\n")
	s, err := read(dir, "example.com/m")
	require.NoError(t, err)
	require.Equal(t, []string{
		"p: const C",
		"p: field T.A int",
		"p: func F(x int) string",
		"p: method (T) M()",
		"p: method I.N() error",
		"p: type Alias = T",
		"p: type I interface",
		"p: type T struct",
		"p: var V",
	}, s.lines)
	require.Equal(t, 6, s.topLevel)
	require.Equal(t, 3, s.members)
}

func set(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
}
