package cli_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// apiFile lists the module's exported API, one name a line
// ("plan: func Plan(…)", "plan/state: method (Snapshot) …"), as its golden
// test keeps it.
const apiFile = "internal/apisurface/testdata/api.txt"

var (
	apiLine   = regexp.MustCompile(`^([a-z/]+): (?:const|var|func|type|field|method) (?:\([A-Za-z*]+\) )?(?:[A-Za-z]+\.)?([A-Z][A-Za-z0-9]*)`)
	citedName = regexp.MustCompile(`(^|[^\w./-])([a-z]+)\.([A-Z][A-Za-z0-9]*)`)
)

// TestCitedNamesExist: every exported name the README and docs/ cite by
// its package (`plan.Needs`, `guard.StorageClassMismatch`,
// `webhook.NewServer`) is one of the module's API, so that a page cannot
// send an importer to a name that is gone or was made internal.
func TestCitedNamesExist(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	f, err := os.Open(apiFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string]map[string]bool{} // a package's last path element: its names
	s := bufio.NewScanner(f)
	for s.Scan() {
		m := apiLine.FindStringSubmatch(s.Text())
		if m == nil {
			continue
		}
		pkg := m[1][strings.LastIndexByte(m[1], '/')+1:]
		if names[pkg] == nil {
			names[pkg] = map[string]bool{}
		}
		names[pkg][m[2]] = true
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names["plan"]) == 0 || !names["plan"]["Plan"] {
		t.Fatalf("read no plan.Plan from %s: the parse missed it", apiFile)
	}
	checked := 0
	for _, file := range walkthroughFiles(t) {
		page, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(page), "\n") {
			for _, m := range citedName.FindAllStringSubmatch(line, -1) {
				pkg, name := m[2], m[3]
				known, ok := names[pkg]
				if ok {
					checked++
				}
				if ok && !known[name] {
					t.Errorf("%s:%d cites %s.%s, which is not in the module's API (%s)", file, i+1, pkg, name, apiFile)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d cited names; the pages cite more: the pattern missed them", checked)
	}
}
