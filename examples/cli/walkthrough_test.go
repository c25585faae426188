package cli_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	workerimage "github.com/cozystack/kubernetes-worker-image/adapters/cli"
	"github.com/cozystack/kubernetes-worker-image/internal/consoleblock"
)

// firstCommand is the README's first command: the main job on the embedded
// example.
const firstCommand = "go run ./adapters/cli/cmd/worker-image plan --example"

// refusing are the documents' commands whose plan is refused (exit status
// 3); every other command but unverifiedRuns and unusableRuns exits 0.
var refusing = []string{
	"./worker-image plan -f examples/cli/refused.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml",
	"sed 's/storage: 6Gi/storage: 8Gi/' examples/cli/catalog.yaml | ./worker-image catalog render --catalog - --state examples/cli/state.yaml",
	"./worker-image diff -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --set talos.version=v1.13.7 --cozystack-values examples/cli/cozystack-values.yaml",
	"./worker-image plan -f examples/cli/vmdisks.yaml --images examples/cli/images.yaml --state examples/cli/vmstate.yaml",
	"sed 's/storage: 20Gi/storage: 5Gi/' examples/cli/vmdisks.yaml | ./worker-image plan -f - --images examples/cli/images.yaml --state examples/cli/vmstate.yaml",
	"sed 's/storage: 20Gi/storage: 30Gi/' examples/cli/images.yaml | ./worker-image catalog images render --images - --state examples/cli/vmstate.yaml",
}

// unusableRuns are the documents' commands whose input is refused
// (exit status 2).
var unusableRuns = []string{
	"./worker-image plan -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --max-input-bytes 32Ki",
}

// unverifiedRuns are the documents' commands that read a state lacking a
// kind they need (exit status 4).
var unverifiedRuns = []string{
	"./worker-image catalog consumers talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.12.4 --state examples/cli/state.yaml",
	"./worker-image catalog prune --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml",
	"./worker-image catalog images prune --images examples/cli/images.yaml --state examples/cli/vmstate.yaml",
}

// walkthroughFiles are the documents whose console blocks the walkthrough
// runs, relative to the repository's root: the README and every page of
// docs/.
func walkthroughFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(pages)
	return append([]string{"README.md"}, pages...)
}

// TestWalkthrough runs every command of the console blocks of the README
// and of every page of docs/, from the repository's root as a reader
// would, and compares what it prints (standard output and standard error,
// in the order a terminal shows them) and its exit status with the
// document's. A console block this test cannot run fails it: no block is
// skipped.
func TestWalkthrough(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	// The documents' runs read the files they name, never a cluster of the
	// reader's environment.
	t.Setenv("KUBECONFIG", "")
	var all []consoleblock.Step
	for _, file := range walkthroughFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := consoleblock.Steps(string(text))
		if err != nil {
			t.Errorf("%s: %v", file, err)
		}
		if file == "README.md" && (len(steps) == 0 || steps[0].Line != firstCommand) {
			t.Errorf("the README's first command is %q", firstCommand)
		}
		for _, s := range steps {
			t.Run(file+"/"+s.Line, func(t *testing.T) { runStep(t, s) })
		}
		all = append(all, steps...)
	}
	for _, r := range slices.Concat(refusing, unverifiedRuns, unusableRuns) {
		if !slices.ContainsFunc(all, func(s consoleblock.Step) bool { return s.Line == r }) {
			t.Errorf("no document runs %q any more; update refusing, unverifiedRuns or unusableRuns", r)
		}
	}
}

// runStep runs one command and compares its exit status and output with
// the document's.
func runStep(t *testing.T, s consoleblock.Step) {
	t.Helper()
	args, stdin, err := consoleblock.Command(s.Line)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := workerimage.Run(args, strings.NewReader(stdin), &out, &out)
	want := workerimage.ExitPlanned
	if slices.Contains(refusing, s.Line) {
		want = workerimage.ExitRefused
	}
	if slices.Contains(unverifiedRuns, s.Line) {
		want = workerimage.ExitUnverified
	}
	if slices.Contains(unusableRuns, s.Line) {
		want = workerimage.ExitUnusable
	}
	if code != want {
		t.Errorf("exit status %d, want %d\n%s", code, want, out.String())
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !consoleblock.Matches(got, s.Output) {
		t.Errorf("the output differs from the document's\n--- document\n%s\n--- got\n%s", strings.Join(s.Output, "\n"), out.String())
	}
}

// TestNoConsoleBlockElsewhere: a console block is in the README or a page
// of docs/, where the walkthrough runs it; one in another Markdown file of
// the module would go unchecked.
func TestNoConsoleBlockElsewhere(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	run := walkthroughFiles(t)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") || slices.Contains(run, path) {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range strings.SplitSeq(string(text), "\n") {
			if strings.TrimSpace(line) == "```console" {
				t.Errorf("%s holds a console block, which the walkthrough does not run: move it to docs/, or show it as sh", path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
