package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLinksResolve: every relative link of the README, of each page of
// docs/ and of the other READMEs of the module names a file or folder that
// exists, and a link to a heading (#anchor, in the same page or another)
// names a heading that page has.
func TestLinksResolve(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	files := walkthroughFiles(t)
	more, err := filepath.Glob(filepath.Join("internal", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append(files, more...) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range brokenLinks(file, string(text), readPath) {
			t.Error(err)
		}
	}
}

// TestBrokenLinksFound holds the link check to a page with a link of each
// kind: those that resolve pass, and each that does not is reported.
func TestBrokenLinksFound(t *testing.T) {
	pages := map[string]string{
		filepath.Join("docs", "cli.md"):   "# CLI\n\n## Exit status\n\n### A `plan`, refused (exit 3)\n",
		filepath.Join("docs", "rules.md"): "# Rules\n",
		"go.mod":                          "module x\n",
	}
	read := func(name string) ([]byte, error) {
		if s, ok := pages[filepath.Clean(name)]; ok {
			return []byte(s), nil
		}
		if filepath.Clean(name) == "plan" {
			return nil, nil // a folder
		}
		return nil, os.ErrNotExist
	}
	page := strings.Join([]string{
		"[ok](docs/cli.md)",
		"[ok](docs/cli.md#exit-status)",
		"[ok](docs/cli.md#a-plan-refused-exit-3)",
		"[ok](plan)",
		"[ok](go.mod)",
		"[ok](#use-from-go)",
		"[ok](https://example.com/missing)",
		"[missing file](docs/gone.md)",
		"[missing anchor](docs/cli.md#exit-codes)",
		"[missing local anchor](#nowhere)",
		"[missing folder](adapters/gone)",
		"```sh",
		"[not a link in code](docs/gone-too.md)",
		"```",
		"`[not a link in code](docs/gone-too.md)`",
		"## Use from Go",
	}, "\n")
	got := brokenLinks("README.md", page, read)
	var targets []string
	for _, e := range got {
		targets = append(targets, e.target)
	}
	want := []string{"docs/gone.md", "docs/cli.md#exit-codes", "#nowhere", "adapters/gone"}
	if !slices.Equal(targets, want) {
		t.Errorf("broken links %q, want %q", targets, want)
	}
}

// readPath reads a file, and a folder as empty.
func readPath(name string) ([]byte, error) {
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		return nil, nil
	}
	return os.ReadFile(name)
}

// linkError is a link whose target does not resolve.
type linkError struct {
	file, target, why string
	line              int
}

func (e linkError) Error() string {
	return fmt.Sprintf("%s:%d: the link %q %s", e.file, e.line, e.target, e.why)
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	headingTag = regexp.MustCompile(`^#{1,6} (.*)$`)
)

// brokenLinks lists the relative links of the Markdown page file (its
// text) that name no file, or no heading of it. read reads a file by its
// path from the repository's root; a folder reads without error.
func brokenLinks(file, text string, read func(string) ([]byte, error)) []linkError {
	var errs []linkError
	dir := filepath.Dir(file)
	inCode := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			page, data := file, []byte(text)
			if path != "" {
				page = filepath.Join(dir, path)
				var err error
				if data, err = read(page); err != nil {
					errs = append(errs, linkError{file, target, "names no file", i + 1})
					continue
				}
			}
			if anchor != "" && !slices.Contains(anchors(string(data)), anchor) {
				errs = append(errs, linkError{file, target, "names no heading of " + page, i + 1})
			}
		}
	}
	return errs
}

// anchors are the ids GitHub gives the headings of a Markdown page:
// lowercased, spaces to hyphens, every other character but letters,
// digits, hyphens and underscores dropped, a repeat suffixed -1, -2, ….
func anchors(page string) []string {
	var ids []string
	seen := map[string]int{}
	inCode := false
	for line := range strings.SplitSeq(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		m := headingTag.FindStringSubmatch(line)
		if inCode || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && !isPunct(r):
				b.WriteRune(r)
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		seen[b.String()]++
		ids = append(ids, id)
	}
	return ids
}

// isPunct reports the non-ASCII punctuation the documents' headings use,
// which GitHub drops from an anchor.
func isPunct(r rune) bool {
	return strings.ContainsRune("…–—’“”→×", r)
}
