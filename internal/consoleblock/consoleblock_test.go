package consoleblock_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/consoleblock"
)

// TestUnrunBlocksFound holds the block reader to a page with a block of
// each kind: the runnable ones pass, and each block the walkthrough would
// not check is reported.
func TestUnrunBlocksFound(t *testing.T) {
	ok := strings.Join([]string{
		"```console",
		"$ ./worker-image plan --example",
		"output",
		"```",
		"```sh",
		"go build -o worker-image ./adapters/cli/cmd/worker-image",
		"./worker-image plan --example",
		"```",
		"```text",
		"$ kubectl apply -f pool.yaml",
		"```",
	}, "\n")
	steps, err := consoleblock.Steps(ok)
	if err != nil || len(steps) != 1 || !slices.Equal(steps[0].Output, []string{"output"}) {
		t.Errorf("a page whose console block runs: steps %v, error %v", steps, err)
	}
	for name, page := range map[string]string{
		"a command no runner knows": "```console\n$ kubectl worker-image plan -A\n```",
		"output before a command":   "```console\noutput\n$ ./worker-image plan --example\n```",
		"a redirect":                "```console\n$ ./worker-image plan --example > out.txt\n```",
		"a run in a text block":     "```text\n$ ./worker-image plan --example\n```",
		"a run in a plain block":    "```\n$ worker-image plan --example\n```",
		"a block never closed":      "```console\n$ ./worker-image plan --example\n",
		"an indented run":           "- a list item:\n\n  ```console\n  $ kubectl worker-image plan -A\n  ```",
	} {
		if _, err := consoleblock.Steps(page); err == nil {
			t.Errorf("%s: not reported", name)
		}
	}
}

// TestCommand: each form's arguments, and a sed pipe's standard input, the
// file with the first match of each line replaced, as sed's s/// without g.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pools.yaml"), []byte("a: x x\nb: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	args, stdin, err := consoleblock.Command("sed 's/x/y/' pools.yaml | ./worker-image plan -f -")
	if err != nil || !slices.Equal(args, []string{"plan", "-f", "-"}) || stdin != "a: y x\nb: y\n" {
		t.Errorf("sed pipe: %q %q %v", args, stdin, err)
	}
	for _, line := range []string{"go run ./adapters/cli/cmd/worker-image plan  --example", "./worker-image plan --example"} {
		args, stdin, err := consoleblock.Command(line)
		if err != nil || !slices.Equal(args, []string{"plan", "--example"}) || stdin != "" {
			t.Errorf("%s: %q %q %v", line, args, stdin, err)
		}
	}
	if _, _, err := consoleblock.Command("sed 's/x/y/' missing.yaml | ./worker-image plan -f -"); err == nil {
		t.Error("a sed pipe of a missing file: no error")
	}
	if _, _, err := consoleblock.Command("helm template ."); err == nil {
		t.Error("another program: no error")
	}
}

// TestMatches: an elided line stands for any number of lines, none
// included; without one the match is exact.
func TestMatches(t *testing.T) {
	e := consoleblock.Elided
	for _, c := range []struct {
		got, want []string
		ok        bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b"}, []string{"a"}, false},
		{[]string{"a", "b", "c"}, []string{"a", e, "c"}, true},
		{[]string{"a", "c"}, []string{"a", e, "c"}, true},
		{[]string{"a", "x", "b", "y", "c"}, []string{"a", e, "b", e, "c"}, true},
		{[]string{"a", "x", "y", "c"}, []string{"a", e, "b", e, "c"}, false},
		{[]string{"a"}, []string{"a", e, "a"}, false},
		{[]string{"b", "c"}, []string{"a", e, "c"}, false},
	} {
		if got := consoleblock.Matches(c.got, c.want); got != c.ok {
			t.Errorf("Matches(%q, %q) = %v, want %v", c.got, c.want, got, c.ok)
		}
	}
}
