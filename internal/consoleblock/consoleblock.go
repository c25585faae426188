// Package consoleblock reads the console blocks of a Markdown document as
// the walkthrough tests run them: each "$ " line a command of
// worker-image, the lines after it what the document shows it printing.
// It knows the forms of command the documents use (go run of the main
// package, the built ./worker-image, and a file edited by sed piped into
// it) and reports any other, so that no block goes unchecked.
package consoleblock

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Elided is the line that stands, in the documents, for output lines left
// out.
const Elided = "…"

// Step is one command of a document and the output shown for it.
type Step struct {
	// Line is the command, without its prompt.
	Line string
	// Output is the lines the document shows after it.
	Output []string
}

// Steps reads the commands ("$ " lines) of a document's console blocks
// and the output lines shown after each. Every console block starts with
// a command and every command is one Command can run, so that no block
// goes unchecked; a block of another language that shows a worker-image
// command with its prompt is an error too, since a walkthrough would not
// run it.
func Steps(doc string) ([]Step, error) {
	var steps []Step
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
				if _, err := parse(cmd); err != nil {
					errs = append(errs, fmt.Errorf("line %d: %w", n, err))
				}
				steps = append(steps, Step{Line: cmd})
				continue
			}
			if len(steps) > 0 {
				steps[len(steps)-1].Output = append(steps[len(steps)-1].Output, line)
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

// command is a document's command taken apart: worker-image's arguments,
// and, for a sed pipe, the file sed reads and its substitution.
type command struct {
	args           []string
	file, from, to string
}

// parse takes a document's command apart without reading any file.
func parse(line string) (command, error) {
	var c command
	var rest string
	if m := sedPipe.FindStringSubmatch(line); m != nil {
		c.from, c.to, c.file, rest = m[1], m[2], m[3], m[4]
	} else if r, ok := strings.CutPrefix(line, "go run ./adapters/cli/cmd/worker-image "); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(line, "./worker-image "); ok {
		rest = r
	} else {
		return c, fmt.Errorf("the command %q is none the walkthrough runs (go run ./adapters/cli/cmd/worker-image, ./worker-image, or sed 's/A/B/' FILE | ./worker-image): show it in a sh block, without a prompt", line)
	}
	if strings.ContainsAny(rest, `'"$|;&<>`) {
		return c, fmt.Errorf("the command %q quotes or redirects; the walkthrough splits arguments on spaces only", line)
	}
	c.args = strings.Fields(rest)
	return c, nil
}

// Command turns a document's command into worker-image's arguments and
// standard input: for a sed pipe, the file it names (relative to the
// working directory, as a reader's shell reads it) with sed's s/// applied
// to the first match on each line. Any form but the three the documents
// use is an error.
func Command(line string) (args []string, stdin string, err error) {
	c, err := parse(line)
	if err != nil {
		return nil, "", err
	}
	if c.file != "" {
		data, err := os.ReadFile(c.file)
		if err != nil {
			return nil, "", err
		}
		// sed's s/// without g: the first match on each line.
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			lines[i] = strings.Replace(l, c.from, c.to, 1)
		}
		stdin = strings.Join(lines, "\n")
	}
	return c.args, stdin, nil
}

// Matches reports whether got is want, where each Elided line of want
// stands for any number of lines. Without elision the match is exact.
func Matches(got, want []string) bool {
	var segs [][]string
	seg := []string{}
	for _, l := range want {
		if l == Elided {
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
