package cli

import (
	"flag"
	"slices"
	"strings"
)

// Output formats.
const (
	human    = ""
	yamlOut  = "yaml"
	jsonOut  = "json"
	chartOut = "chart"
)

// options are every command's flags; each command registers its own.
type options struct {
	file       string
	catalog    string
	state      string
	observed   observedKinds
	kubeconfig string
	output     string
	name       string
	namespace  string
	example    bool

	formats []string
}

func (o *options) fileFlag(fs *flag.FlagSet, usage string) {
	fs.StringVar(&o.file, "f", "", usage+` ("-" reads standard input)`)
	fs.StringVar(&o.file, "filename", "", "same as -f")
}

func (o *options) catalogFlag(fs *flag.FlagSet, usage string) {
	fs.StringVar(&o.catalog, "catalog", "", usage)
}

func (o *options) stateFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.state, "state", "", "`STATE.yaml`: the cluster's state, Kubernetes objects as kubectl get -o yaml prints them (a List or ---separated documents); "+
		"it observes the kinds it holds an object of, and those --observed names: any other kind is unknown")
	fs.Var(&o.observed, "observed", "`KIND,...` the --state file covers in full even where it holds no object of them "+
		"(all: every kind, in every namespace); kinds: "+strings.Join(kindNames(), ", "))
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "read the cluster's state from the cluster of this kubeconfig (only what the plan needs)")
}

func (o *options) outputFlag(fs *flag.FlagSet, formats ...string) {
	o.formats = formats
	usage := "output format: " + strings.Join(formats, ", ") + " (default: text for people)"
	fs.StringVar(&o.output, "o", "", usage)
	fs.StringVar(&o.output, "output", "", "same as -o")
}

func (o *options) exampleFlag(fs *flag.FlagSet) {
	fs.BoolVar(&o.example, "example", false, "run on the walkthrough's example files embedded from examples/cli (pools, catalog, and a state observed whole)")
}

// check refuses flags that cannot go together.
func (o *options) check() error {
	if o.output != human && !slices.Contains(o.formats, o.output) {
		return badUsage("-o %q is not one of %s", o.output, strings.Join(o.formats, ", "))
	}
	if o.state != "" && o.kubeconfig != "" {
		return badUsage("--state and --kubeconfig both give the cluster's state; pass one")
	}
	if o.example && (o.file != "" || o.catalog != "" || o.state != "" || o.kubeconfig != "") {
		return badUsage("--example brings its own files; pass it alone, or pass the files without it")
	}
	if o.observed.set && o.state == "" {
		return badUsage("--observed says what a --state file covers; pass it with --state")
	}
	if stdin := countStdin(o.file, o.catalog, o.state); stdin > 1 {
		return badUsage("standard input (-) is named %d times; it can be read once", stdin)
	}
	return nil
}

// countStdin counts the inputs that name standard input.
func countStdin(paths ...string) int {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	return n
}
