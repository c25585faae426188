package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Run runs the worker-image command with args (without the program's name)
// and returns its exit status. It reads standard input only where a command
// says so (-f -, helm-verify).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{prog: programName(os.Args), stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, lookupEnv: os.LookupEnv}
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
	getenv func(string) string
	// lookupEnv tells a variable set empty from one not set.
	lookupEnv func(string) (string, bool)

	// conn is the cluster connection, made at most once per run.
	conn *conn
	// showProgress is --progress: progress lines even off a terminal.
	showProgress bool
	// closers are closed when the run ends.
	closers []io.Closer
	// maxInput is --max-input-bytes: the bound on one input (0: the
	// default).
	maxInput byteSize
	// catalogFrom is where loadCatalog found the catalog.
	catalogFrom *catalogSource
	// classDefaulted are the pools ("namespace/name") whose values set no
	// storageClass: their class is the chart's default, not their own.
	classDefaulted map[string]bool
	// inputs are the -f files, once read: plan reads them to tell VMDisks
	// from pools, and the pools' reading takes them from here.
	inputs []input
}

// command is a subcommand declared with the standard library's flag
// package, for commands that predate the cobra tree (commands lists them;
// each becomes a cobra command through cobraCommand). A Go flag of one
// letter is its shorthand (-f), a longer one is --name.
type command struct {
	name     string
	summary  string
	synopsis string
	about    string
	example  string
	flags    func(fs *flag.FlagSet, o *options)
	run      func(a *app, o *options, args []string) error
}

// commands are the subcommands declared with package flag; the cobra tree
// (root) adds each after its own.
var commands = []*command{webhookCommand, controllerCommand}

// cobraCommand turns a flag-package command into a cobra command.
func (c *command) cobraCommand(a *app) *cobra.Command {
	o := &options{}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs, o)
	cmd := &cobra.Command{
		Use:     c.synopsis,
		Short:   c.summary,
		Long:    c.about,
		Example: a.examples(c.example),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			o.changed = cmd.Flags().Changed
			return c.run(a, o, args)
		},
	}
	cmd.Flags().AddGoFlagSet(fs)
	return cmd
}

func (a *app) main(args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(a.stderr, "%s: internal error, please report it: %v\n%s", a.prog, p, debug.Stack())
			code = ExitFailed
		}
	}()
	defer func() {
		for _, c := range a.closers {
			c.Close()
		}
	}()
	root := a.root()
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	name := root.DisplayName() + commandPath(cmd)
	switch {
	case err == nil || err == errRefused || err == errUnverified:
	case isUsage(err):
		printf(a.stderr, "%s: %s\nrun %s -h for its flags\n", name, err, name)
	default:
		printf(a.stderr, "%s: %s\n", name, err)
	}
	return codeOf(err)
}

// commandPath is the command's path under the root: " catalog render".
func commandPath(cmd *cobra.Command) string {
	var parts []string
	for c := cmd; c.HasParent(); c = c.Parent() {
		parts = append([]string{c.Name()}, parts...)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

// root is the command tree.
func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "worker-image",
		Short: "plan the system disks of Cozystack tenant worker pools",
		Long: `Plans the system disks of Cozystack tenant worker pools: each pool's
disk-system DataVolume either clones the catalog's golden Talos image at the
storage layer or imports it over HTTP as before, and every plan that would
silently degrade is refused with a typed reason.

Exit status: 0 planned, 3 refused, 4 unverified (plan could not read a kind
it needed from the cluster, and nothing was refused), 2 unusable input, 1
anything else (a cluster that cannot be read, an endpoint that is not a
Kubernetes API server).

Installed on PATH as kubectl-worker_image, it runs as "kubectl worker-image",
with kubectl's flags: -n, -A, --context, --kubeconfig (and KUBECONFIG),
--request-timeout, -o.`,
		Example:       a.examples("worker-image plan --example\nworker-image plan -n tenant-demo\nworker-image plan kubernetesnodes/demo-md0 -n tenant-demo -o chart"),
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badUsage("no command %q; run %s help", strings.Join(args, " "), a.prog)
			}
			cmd.SetOut(a.stderr)
			_ = cmd.Help()
			return &exitError{code: ExitUnusable, err: errors.New("name a command")}
		},
	}
	if a.prog != "worker-image" {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: a.prog}
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().Var(&a.maxInput, maxInputFlag, "`SIZE` of the largest input read (a file, standard input, a directory's file, a kubeconfig): bytes, or a quantity such as 1Gi; a larger one is refused (exit 2) before it is read whole")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	root.SetVersionTemplate("{{.DisplayName}} version {{.Version}}\n")
	root.AddCommand(a.planCommand(), a.diffCommand(), a.catalogCommand(), a.computePlaneCommand(), a.verifyCommand())
	for _, c := range commands {
		root.AddCommand(c.cobraCommand(a))
	}
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			printf(a.stdout, "%s version %s\n", cmd.Root().DisplayName(), version())
			return nil
		},
	})
	return root
}

// examples names the program as it runs where an example's line runs it
// (at its start, or after a pipe): installed as a kubectl plugin, help
// says "kubectl worker-image plan …".
func (a *app) examples(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = "  " + programRun.ReplaceAllString(l, "${1}"+a.prog+" ")
	}
	return strings.Join(lines, "\n")
}

// programRun is where an example's line runs the program.
var programRun = regexp.MustCompile(`(^|\| )worker-image `)

// version is the module's version as the Go toolchain stamped it, or
// "(devel)", and the commit it was built from (vcs.revision, with
// "modified" when the work tree had changes) when the build recorded one.
func version() string { return versionOf(debug.ReadBuildInfo()) }

// versionOf is version from the build's information.
func versionOf(bi *debug.BuildInfo, ok bool) string {
	v := "(devel)"
	if !ok || bi == nil {
		return v
	}
	if bi.Main.Version != "" {
		v = bi.Main.Version
	}
	var revision, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision != "" {
		v += " (commit " + revision
		if modified == "true" {
			v += ", modified"
		}
		v += ")"
	}
	return v
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
