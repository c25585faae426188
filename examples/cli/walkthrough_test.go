package cli_test

import (
	"bytes"
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

// refusing are the README's commands whose plan is refused (exit status 3);
// every other command of the README but unverifiedRuns exits 0.
var refusing = []string{
	"./worker-image plan -f examples/cli/refused.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml",
	"sed 's/storage: 6Gi/storage: 8Gi/' examples/cli/catalog.yaml | ./worker-image catalog render --catalog - --state examples/cli/state.yaml",
	"./worker-image diff -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --set talos.version=v1.13.7 --cozystack-values examples/cli/cozystack-values.yaml",
}

// unverifiedRuns are the README's commands that read a state lacking a
// kind they need (exit status 4).
var unverifiedRuns = []string{
	"./worker-image catalog consumers talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.12.4 --state examples/cli/state.yaml",
	"./worker-image catalog prune --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml",
}

// elided is the line that stands, in the README, for output lines left out.
const elided = "…"

// step is one command of the README and the output shown for it.
type step struct {
	line   string
	output []string
}

// TestREADME runs every command of the README's console blocks, from the
// repository's root as a reader would, and compares what it prints
// (standard output and standard error, in the order a terminal shows them)
// and its exit status with the README's.
func TestREADME(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	// The README's runs read the files they name, never a cluster of the
	// reader's environment.
	t.Setenv("KUBECONFIG", "")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := consoleSteps(string(readme))
	if len(steps) == 0 || steps[0].line != firstCommand {
		t.Fatalf("the README's first command is %q", firstCommand)
	}
	for _, r := range append(slices.Clone(refusing), unverifiedRuns...) {
		if !slices.ContainsFunc(steps, func(s step) bool { return s.line == r }) {
			t.Errorf("the README no longer runs %q; update refusing or unverifiedRuns", r)
		}
	}
	for _, s := range steps {
		t.Run(s.line, func(t *testing.T) {
			args, stdin := command(t, s.line)
			var out bytes.Buffer
			code := workerimage.Run(args, strings.NewReader(stdin), &out, &out)
			want := workerimage.ExitPlanned
			if slices.Contains(refusing, s.line) {
				want = workerimage.ExitRefused
			}
			if slices.Contains(unverifiedRuns, s.line) {
				want = workerimage.ExitUnverified
			}
			if code != want {
				t.Errorf("exit status %d, want %d\n%s", code, want, out.String())
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if !matches(got, s.output) {
				t.Errorf("the output differs from the README's\n--- README\n%s\n--- got\n%s", strings.Join(s.output, "\n"), out.String())
			}
		})
	}
}

// consoleSteps reads the commands ("$ " lines) of the README's console
// blocks and the output lines shown after each.
func consoleSteps(readme string) []step {
	var steps []step
	inConsole := false
	for line := range strings.SplitSeq(readme, "\n") {
		switch {
		case line == "```console":
			inConsole = true
		case line == "```":
			inConsole = false
		case !inConsole:
		case strings.HasPrefix(line, "$ "):
			steps = append(steps, step{line: strings.TrimPrefix(line, "$ ")})
		case len(steps) > 0:
			steps[len(steps)-1].output = append(steps[len(steps)-1].output, line)
		}
	}
	return steps
}

var sedPipe = regexp.MustCompile(`^sed 's/([^/']*)/([^/']*)/' (\S+) \| \./worker-image (.*)$`)

// command turns a README command into worker-image's arguments and standard
// input. It knows the forms the README uses: go run of the main package, the
// built ./worker-image, and a file edited by sed piped into it.
func command(t *testing.T, line string) ([]string, string) {
	t.Helper()
	var rest, stdin string
	if m := sedPipe.FindStringSubmatch(line); m != nil {
		data, err := os.ReadFile(m[3])
		if err != nil {
			t.Fatal(err)
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
		t.Fatalf("the README runs a command this test cannot: %q", line)
	}
	if strings.ContainsAny(rest, `'"$|;&<>`) {
		t.Fatalf("the README quotes or redirects in %q; this test splits arguments on spaces only", line)
	}
	return strings.Fields(rest), stdin
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
