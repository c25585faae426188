package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
)

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// defaultMaxInput bounds every input the command reads (a file, standard
// input, a directory's file, a --state dump) unless --max-input-bytes says
// otherwise: a larger one is refused before it is read whole, so that
// /dev/zero or a runaway pipe ends in an error, not in memory without end.
const defaultMaxInput = 256 << 20

// maxInputFlag is the flag that raises the bound.
const maxInputFlag = "max-input-bytes"

// inputLimit is the bound on one input.
func (a *app) inputLimit() int64 {
	if a.maxInput > 0 {
		return int64(a.maxInput)
	}
	return defaultMaxInput
}

// tooLarge is the error of an input over the bound: unusable input naming
// the bound and the flag that raises it.
func (a *app) tooLarge(name string) error {
	limit := a.inputLimit()
	return unusable("%s is larger than %s (%d bytes), the limit of one input; if it is meant to be that large, raise the limit with --%s=%d (or a quantity such as 1Gi)",
		name, (*byteSize)(&limit), limit, maxInputFlag, 2*limit)
}

// readAll reads r whole, up to the bound: an input over it is refused
// once the bound is passed, never read to its end.
func (a *app) readAll(name string, r io.Reader) ([]byte, error) {
	limit := a.inputLimit()
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, unusable("read %s: %v", name, unwrapPath(err))
	}
	if int64(len(data)) > limit {
		return nil, a.tooLarge(name)
	}
	return data, nil
}

// readFile reads a named input; "-" is standard input. A file that cannot
// be read, or is over the bound, is unusable input; a regular file over it
// is refused from its size, before it is read.
func (a *app) readFile(path string) ([]byte, string, error) {
	if path == "-" {
		data, err := a.readAll(stdinName, a.stdin)
		return data, stdinName, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, path, unusable("%v", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > a.inputLimit() {
		return nil, path, a.tooLarge(path)
	}
	data, err := a.readAll(path, f)
	return data, path, err
}

// openInput opens a named input for a decoder that reads at offsets: a
// regular file where it lies, anything else ("-" for standard input, a
// pipe) read into memory first. A file that cannot be read, or is over the
// bound, is unusable input.
func (a *app) openInput(path string) (io.ReaderAt, int64, string, func(), error) {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, path, nil, unusable("%v", err)
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > a.inputLimit() {
				f.Close()
				return nil, 0, path, nil, a.tooLarge(path)
			}
			return f, fi.Size(), path, func() { f.Close() }, nil
		}
		// A pipe is read from the descriptor already open: closing it and
		// opening it again would lose what its writer has written.
		data, err := a.readAll(path, f)
		f.Close()
		if err != nil {
			return nil, 0, path, nil, err
		}
		return bytes.NewReader(data), int64(len(data)), path, func() {}, nil
	}
	data, name, err := a.readFile(path)
	if err != nil {
		return nil, 0, name, nil, err
	}
	return bytes.NewReader(data), int64(len(data)), name, func() {}, nil
}

// unwrapPath is a *fs.PathError's cause, without its operation and path
// (which the message names already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// input is one file an -f named, read.
type input struct {
	name string
	data []byte
}

// manifestExtensions are the files of a directory -f reads, as kubectl
// reads them.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// readInputs reads every -f: a file, "-", or a directory, whose files with
// a manifest extension are read in name order (not its subdirectories, as
// kubectl without -R).
func (a *app) readInputs(paths []string) ([]input, error) {
	var out []input
	for _, p := range paths {
		if p != "-" {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				entries, err := os.ReadDir(p)
				if err != nil {
					return nil, unusable("%v", err)
				}
				n := len(out)
				for _, e := range entries {
					if e.IsDir() || !slices.Contains(manifestExtensions, filepath.Ext(e.Name())) {
						continue
					}
					data, name, err := a.readFile(filepath.Join(p, e.Name()))
					if err != nil {
						return nil, err
					}
					out = append(out, input{name, data})
				}
				if len(out) == n {
					return nil, unusable("%s is a directory without a %s file", p, strings.Join(manifestExtensions, ", "))
				}
				continue
			}
		}
		data, name, err := a.readFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, input{name, data})
	}
	return out, nil
}

// documents decodes the Kubernetes objects of a file; a document that does
// not parse, or is not an object, is unusable input named by file and line.
func (a *app) documents(name string, data []byte) ([]manifests.Document, error) {
	r, p := a.readProgress(name, bytes.NewReader(data), int64(len(data)))
	docs, err := manifests.Documents(name, r)
	p.finish()
	if err != nil {
		return nil, inputError(err)
	}
	return docs, nil
}

// inputError makes a decoder's error unusable input; its message already
// names the file and the line.
func inputError(err error) error {
	var me *manifests.Error
	if errors.As(err, &me) {
		return &exitError{code: ExitUnusable, err: err}
	}
	return unusable("%v", err)
}

// yamlLine is how the YAML parser places an error: only in its message.
var yamlLine = regexp.MustCompile(`\bline (\d+):`)

// values decodes a values file (one YAML document holding a map), as Helm
// reads values. A syntax error is unusable input named by file and line,
// the line of the offending byte or value itself when the parser names
// none (a control character, invalid UTF-8, a .inf that JSON cannot hold).
func values(name string, data []byte) (map[string]any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		} else if l, ok := badByteLine(data); ok {
			line = l
		} else if l, what, ok := nonNumberLine(data); ok {
			return nil, unusable("%s:%d: %s is no number JSON can hold, so Helm cannot read it (quote it to mean the string)", name, l, what)
		}
		return nil, unusable("%s:%d: %v (fix the YAML there)", name, line, err)
	}
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	}
	return nil, unusable("%s:1: the document is %s, not a map of values", name, describeValue(v))
}

// badByteLine is the line of the first byte YAML does not allow: invalid
// UTF-8, or a control character other than tab, newline and carriage
// return (YAML 1.2's printable set).
func badByteLine(data []byte) (int, bool) {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line, true
		case r == '\n':
			line++
		case r == '\t', r == '\r':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f && r != 0x85, r == 0xfffe, r == 0xffff:
			return line, true
		}
		i += size
	}
	return 0, false
}

// nonNumberLine finds a float YAML reads as infinite or not a number.
func nonNumberLine(data []byte) (int, string, bool) {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		return 0, "", false
	}
	var walk func(n *yamlv3.Node) (int, string, bool)
	walk = func(n *yamlv3.Node) (int, string, bool) {
		if n.Kind == yamlv3.ScalarNode && n.ShortTag() == "!!float" {
			var f float64
			if n.Decode(&f) == nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
				return n.Line, n.Value, true
			}
		}
		for _, c := range n.Content {
			if l, v, ok := walk(c); ok {
				return l, v, ok
			}
		}
		return 0, "", false
	}
	return walk(&doc)
}

func describeValue(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}
