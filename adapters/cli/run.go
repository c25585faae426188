package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// Run runs the worker-image command with args (without the program's name)
// and returns its exit status. It reads standard input only where a command
// says so (-f -, helm-verify).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{prog: programName(os.Args), stdin: stdin, stdout: stdout, stderr: stderr}
	return a.main(args)
}

// programName is how the command names itself: installed as
// kubectl-worker_image it runs as the kubectl plugin `kubectl worker-image`.
func programName(argv []string) string {
	if len(argv) > 0 {
		if plugin, ok := strings.CutPrefix(filepath.Base(argv[0]), "kubectl-"); ok && plugin != "" {
			return "kubectl " + strings.ReplaceAll(plugin, "_", "-")
		}
	}
	return "worker-image"
}

// app is one run of the command.
type app struct {
	prog   string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is a subcommand: its flags, its help and what it does.
type command struct {
	name     string
	summary  string
	synopsis string
	about    string
	example  string
	flags    func(fs *flag.FlagSet, o *options)
	run      func(a *app, o *options, args []string) error
}

var commands = []*command{planCommand, renderCommand, consumersCommand, pruneCommand, computePlaneCommand, verifyCommand, webhookCommand}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (a *app) main(args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(a.stderr, "%s: internal error, please report it: %v\n%s", a.prog, p, debug.Stack())
			code = ExitFailed
		}
	}()
	if len(args) == 0 {
		a.usage(a.stderr)
		return ExitUnusable
	}
	switch args[0] {
	case "-h", "-help", "--help":
		a.usage(a.stdout)
		return ExitPlanned
	case "help":
		if len(args) == 1 {
			a.usage(a.stdout)
			return ExitPlanned
		}
		cmd, _ := find(args[1:])
		if cmd == nil {
			fmt.Fprintf(a.stderr, "%s help: no command %q\n", a.prog, strings.Join(args[1:], " "))
			return ExitUnusable
		}
		a.commandUsage(a.stdout, cmd, newFlags(cmd, &options{}))
		return ExitPlanned
	}
	cmd, rest := find(args)
	if cmd == nil {
		fmt.Fprintf(a.stderr, "%s: no command %q; run %s help\n", a.prog, strings.Join(args[:min(len(args), 2)], " "), a.prog)
		return ExitUnusable
	}
	return a.exec(cmd, rest)
}

// find finds the command args name, "plan" or "catalog render", and the
// arguments after its name.
func find(args []string) (*command, []string) {
	if len(args) >= 2 && args[0] == "catalog" {
		if c := lookup("catalog " + args[1]); c != nil {
			return c, args[2:]
		}
		return nil, nil
	}
	if c := lookup(args[0]); c != nil && !strings.HasPrefix(c.name, "catalog ") {
		return c, args[1:]
	}
	return nil, nil
}

func (a *app) exec(cmd *command, args []string) int {
	var o options
	fs := newFlags(cmd, &o)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		a.commandUsage(a.stdout, cmd, fs)
		return ExitPlanned
	}
	if err != nil {
		err = &exitError{code: ExitUnusable, err: err, usage: true}
	}
	if err == nil {
		err = o.check()
	}
	if err == nil {
		err = cmd.run(a, &o, pos)
	}
	switch {
	case err == nil || err == errRefused:
	case isUsage(err):
		fmt.Fprintf(a.stderr, "%s %s: %v\nrun %s %s -h for its flags\n", a.prog, cmd.name, err, a.prog, cmd.name)
	default:
		fmt.Fprintf(a.stderr, "%s %s: %v\n", a.prog, cmd.name, err)
	}
	return codeOf(err)
}

func newFlags(cmd *command, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	cmd.flags(fs, o)
	return fs
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments (`catalog consumers GOLDEN --state s.yaml`), which the flag
// package alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func (a *app) usage(w io.Writer) {
	fmt.Fprintf(w, `%[1]s plans the system disks of Cozystack tenant worker pools: each pool's
disk-system DataVolume either clones the catalog's golden Talos image at the
storage layer or imports it over HTTP as before, and every plan that would
silently degrade is refused with a typed reason.

Usage:
  %[1]s <command> [flags]

Commands:
`, a.prog)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-19s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
Exit status: 0 planned, 3 refused, 2 unusable input, 1 anything else.

Start with the embedded example:
  %[1]s plan --example

Installed on PATH as kubectl-worker_image, it runs as "kubectl worker-image".
Run "%[1]s <command> -h" for a command's flags and an example.
`, a.prog)
}

func (a *app) commandUsage(w io.Writer, cmd *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage:\n  %s %s\n\n%s\n\nExample:\n", a.prog, cmd.synopsis, cmd.about)
	for _, line := range strings.Split(cmd.example, "\n") {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(line, "worker-image", a.prog))
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
