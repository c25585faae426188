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
	fs.StringVar(&o.state, "state", "", "the cluster's state: Kubernetes objects as `kubectl get -o yaml` prints them (a List or ---separated documents); every kind is observed")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "read the cluster's state from the cluster of this kubeconfig (only what the plan needs)")
}

func (o *options) outputFlag(fs *flag.FlagSet, formats ...string) {
	o.formats = formats
	usage := "output format: " + strings.Join(formats, ", ") + " (default: text for people)"
	fs.StringVar(&o.output, "o", "", usage)
	fs.StringVar(&o.output, "output", "", "same as -o")
}

func (o *options) exampleFlag(fs *flag.FlagSet) {
	fs.BoolVar(&o.example, "example", false, "run on the walkthrough's example files embedded from examples/cli (pools, catalog, state)")
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
	return nil
}
