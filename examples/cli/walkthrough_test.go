package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	workerimage "github.com/cozystack/kubernetes-worker-image/adapters/cli"
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

// elided is the line that stands, in the documents, for output lines left
// out.
const elided = "…"

// step is one command of a document and the output shown for it.
type step struct {
	line   string
	output []string
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
	var all []step
	for _, file := range walkthroughFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := consoleSteps(string(text))
		if err != nil {
			t.Errorf("%s: %v", file, err)
		}
		if file == "README.md" && (len(steps) == 0 || steps[0].line != firstCommand) {
			t.Errorf("the README's first command is %q", firstCommand)
		}
		for _, s := range steps {
			t.Run(file+"/"+s.line, func(t *testing.T) { runStep(t, s) })
		}
		all = append(all, steps...)
	}
	for _, r := range slices.Concat(refusing, unverifiedRuns, unusableRuns) {
		if !slices.ContainsFunc(all, func(s step) bool { return s.line == r }) {
			t.Errorf("no document runs %q any more; update refusing, unverifiedRuns or unusableRuns", r)
		}
	}
}

// runStep runs one command and compares its exit status and output with
// the document's.
func runStep(t *testing.T, s step) {
	t.Helper()
	args, stdin, err := command(s.line)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := workerimage.Run(args, strings.NewReader(stdin), &out, &out)
	want := workerimage.ExitPlanned
	if slices.Contains(refusing, s.line) {
		want = workerimage.ExitRefused
	}
	if slices.Contains(unverifiedRuns, s.line) {
		want = workerimage.ExitUnverified
	}
	if slices.Contains(unusableRuns, s.line) {
		want = workerimage.ExitUnusable
	}
	if code != want {
		t.Errorf("exit status %d, want %d\n%s", code, want, out.String())
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !matches(got, s.output) {
		t.Errorf("the output differs from the document's\n--- document\n%s\n--- got\n%s", strings.Join(s.output, "\n"), out.String())
	}
}

// consoleSteps reads the commands ("$ " lines) of a document's console
// blocks and the output lines shown after each. Every console block starts
// with a command and every command is one command can run, so that no
// block goes unchecked; a block of another language that shows a
// worker-image command with its prompt is an error too, since the
// walkthrough would not run it.
func consoleSteps(doc string) ([]step, error) {
	var steps []step
	var errs []error
	fence := ""  // the info string of the block the line is in, "" outside
	indent := "" // the fence's indentation (a block in a list item), which its lines carry too
	first := false
	for i, line := range strings.Split(doc, "\n") {
		n := i + 1
		trimmed := strings.TrimLeft(line, " ")
		if info, ok := strings.CutPrefix(trimmed, "```"); ok {
			switch {
			case fence == "":
				fence, first, indent = info, true, line[:len(line)-len(trimmed)]
				if fence == "" {
					// A block without a language is still inside a fence.
					fence = "plain"
				}
			case info == "":
				fence = ""
			}
			continue
		}
		line = strings.TrimPrefix(line, indent)
		switch {
		case fence == "console":
			cmd, isCmd := strings.CutPrefix(line, "$ ")
			if first && !isCmd {
				errs = append(errs, fmt.Errorf("line %d: a console block starts with output, not a command (\"$ …\")", n))
			}
			first = false
			if isCmd {
				if _, _, err := command(cmd); err != nil {
					errs = append(errs, fmt.Errorf("line %d: %w", n, err))
				}
				steps = append(steps, step{line: cmd})
				continue
			}
			if len(steps) > 0 {
				steps[len(steps)-1].output = append(steps[len(steps)-1].output, line)
			}
		case fence != "" && runsWorkerImage(line):
			errs = append(errs, fmt.Errorf("line %d: a %q block shows the run %q, which only a console block gets checked for", n, fence, line))
		}
	}
	if fence != "" {
		errs = append(errs, errors.New("a code block is never closed"))
	}
	return steps, errors.Join(errs...)
}

// runsWorkerImage reports whether line is a prompt and a worker-image
// command, as a console block shows one.
func runsWorkerImage(line string) bool {
	cmd, ok := strings.CutPrefix(line, "$ ")
	if !ok {
		return false
	}
	return strings.HasPrefix(cmd, "./worker-image ") || strings.HasPrefix(cmd, "worker-image ") ||
		strings.HasPrefix(cmd, "go run ./adapters/cli/cmd/worker-image") || sedPipe.MatchString(cmd)
}

var sedPipe = regexp.MustCompile(`^sed 's/([^/']*)/([^/']*)/' (\S+) \| \./worker-image (.*)$`)

// command turns a document's command into worker-image's arguments and
// standard input. It knows the forms the documents use: go run of the main
// package, the built ./worker-image, and a file edited by sed piped into
// it; any other is an error.
func command(line string) ([]string, string, error) {
	var rest, stdin string
	if m := sedPipe.FindStringSubmatch(line); m != nil {
		data, err := os.ReadFile(m[3])
		if err != nil {
			return nil, "", err
		}
		// sed's s/// without g: the first match on each line.
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			lines[i] = strings.Replace(l, m[1], m[2], 1)
		}
		rest, stdin = m[4], strings.Join(lines, "\n")
	} else if r, ok := strings.CutPrefix(line, "go run ./adapters/cli/cmd/worker-image "); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(line, "./worker-image "); ok {
		rest = r
	} else {
		return nil, "", fmt.Errorf("the command %q is none the walkthrough runs (go run ./adapters/cli/cmd/worker-image, ./worker-image, or sed 's/A/B/' FILE | ./worker-image): show it in a sh block, without a prompt", line)
	}
	if strings.ContainsAny(rest, `'"$|;&<>`) {
		return nil, "", fmt.Errorf("the command %q quotes or redirects; the walkthrough splits arguments on spaces only", line)
	}
	return strings.Fields(rest), stdin, nil
}

// matches reports whether got is want, where each elided line of want
// stands for any number of lines. Without elision the match is exact.
func matches(got, want []string) bool {
	var segs [][]string
	seg := []string{}
	for _, l := range want {
		if l == elided {
			segs = append(segs, seg)
			seg = []string{}
			continue
		}
		seg = append(seg, l)
	}
	segs = append(segs, seg)
	if len(segs) == 1 {
		return slices.Equal(got, want)
	}
	first, last := segs[0], segs[len(segs)-1]
	if len(got) < len(first) || !slices.Equal(got[:len(first)], first) {
		return false
	}
	i := len(first)
	for _, s := range segs[1 : len(segs)-1] {
		j := index(got[i:], s)
		if j < 0 {
			return false
		}
		i += j + len(s)
	}
	return len(got)-len(last) >= i && slices.Equal(got[len(got)-len(last):], last)
}

// index is the first position of sub in lines, or -1.
func index(lines, sub []string) int {
	for i := 0; i+len(sub) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

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
	steps, err := consoleSteps(ok)
	if err != nil || len(steps) != 1 || !slices.Equal(steps[0].output, []string{"output"}) {
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
		if _, err := consoleSteps(page); err == nil {
			t.Errorf("%s: not reported", name)
		}
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
