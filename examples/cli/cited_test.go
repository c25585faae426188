package cli_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	citedTest  = regexp.MustCompile(`\b(?:Test|Benchmark)[A-Z][A-Za-z0-9_]*`)
	citedBench = regexp.MustCompile(`-bench '?\^?([A-Z][A-Za-z0-9]*)`)
	testFunc   = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark)[A-Za-z0-9_]+)\(`)
)

// TestCitedTestsExist: every test and benchmark the README and docs/ name
// (TestScale, -bench Admission) is one of the module's, so that a command
// the pages give to reproduce a figure runs something.
func TestCitedTestsExist(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	funcs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
			funcs[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range walkthroughFiles(t) {
		page, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range citedTest.FindAllString(string(page), -1) {
			if !funcs[name] {
				t.Errorf("%s names %s, which is no test of the module", file, name)
			}
		}
		for _, m := range citedBench.FindAllStringSubmatch(string(page), -1) {
			name := strings.TrimPrefix(m[1], "Benchmark")
			found := false
			for f := range funcs {
				if strings.HasPrefix(f, "Benchmark") && strings.Contains(f, name) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s runs -bench %s, which matches no benchmark of the module", file, m[1])
			}
		}
	}
}
