package cli

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
)

// Output formats.
const (
	human    = ""
	yamlOut  = "yaml"
	jsonOut  = "json"
	chartOut = "chart"
	wideOut  = "wide"
)

// defaultRequestTimeout bounds each request to a cluster unless
// --request-timeout says otherwise.
const defaultRequestTimeout = "30s"

// options are every command's flags; each command registers its own.
type options struct {
	files          []string
	catalog        string
	catalogRelease string
	images         string
	state          string
	observed       observedKinds
	kubeconfig     string
	context        string
	namespace      string
	allNamespaces  bool
	requestTimeout string
	output         string
	name           string
	example        bool
	strict         bool
	progress       bool

	formats []string
	// changed reports whether a flag was given on the command line, not
	// left to its default (set for the commands declared with package
	// flag before they run).
	changed func(name string) bool
	// cluster reports whether the command registered the cluster flags.
	cluster bool
}

// stringFlags is a flag set of either flag package: the shared flags
// register into both, so that a command declared with package flag
// (command) takes them too.
type stringFlags interface {
	StringVar(p *string, name, value, usage string)
}

func (o *options) fileFlag(fs *pflag.FlagSet, usage string) {
	fs.StringSliceVarP(&o.files, "filename", "f", nil, usage+`; repeat it, or give a directory (its .yaml, .yml and .json files), or "-" for standard input`)
}

func (o *options) catalogFlag(fs stringFlags, usage string) {
	fs.StringVar(&o.catalog, "catalog", "", usage)
}

// catalogFlags are --catalog and --catalog-release: the catalog is the
// file's, else the release's read from the cluster; else, where readBack,
// the catalog read back from the goldens (loadCatalog), and otherwise none
// (releaseCatalog refuses).
func (o *options) catalogFlags(fs *pflag.FlagSet, usage string, readBack bool) {
	fallback := "else read back from the goldens in the cluster's state"
	if !readBack {
		fallback = "required when that release cannot be read"
	}
	o.catalogFlag(fs, usage+"; or a HelmRelease of them (kubectl get hr -o yaml), whose valuesFrom is read from the cluster "+
		"(default: the --catalog-release read from the cluster, "+fallback+")")
	fs.StringVar(&o.catalogRelease, "catalog-release", catalogrelease.Default.String(), "`NAMESPACE/NAME` of the catalog's HelmRelease, whose values (spec.values over spec.valuesFrom) are the catalog when no --catalog is given")
}

// stateFlags are where the cluster's state comes from: a --state file, or
// a cluster (kubectl's flags, and KUBECONFIG).
func (o *options) stateFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.state, "state", "", "`STATE.yaml`: the cluster's state, Kubernetes objects as kubectl get -o yaml prints them (a List or ---separated documents); "+
		"it observes the kinds it holds an object of, and those --observed names: any other kind is unknown")
	fs.Var(&o.observed, "observed", "`KIND,...` the --state file covers in full even where it holds no object of them "+
		"(all: every kind, in every namespace); kinds: "+strings.Join(kindNames(), ", "))
	o.clusterFlags(fs)
}

// clusterFlags are kubectl's: the cluster is read when one of them or
// KUBECONFIG names it (client-go's loading rules, as kubectl loads them).
func (o *options) clusterFlags(fs *pflag.FlagSet) {
	o.cluster = true
	fs.StringVar(&o.kubeconfig, clientcmd.RecommendedConfigPathFlag, "", "`PATH` of the kubeconfig whose cluster is read (default: KUBECONFIG when set); only what the plan needs is read")
	fs.StringVar(&o.context, "context", "", "`NAME` of the kubeconfig context to read")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "`NAMESPACE` of pools that name none (default: the context's, else \"default\"); a pool that names another is an error")
	fs.StringVar(&o.requestTimeout, "request-timeout", defaultRequestTimeout, "`DURATION` to wait for each request to the cluster, and for each silence of a streamed list (1s, 2m, an integer of seconds; 0 waits forever)")
}

func (o *options) outputFlag(fs *pflag.FlagSet, formats ...string) {
	o.outputFlagSaying(fs, "text for people", formats...)
}

// outputFlagSaying is outputFlag for a command whose output without -o is
// what def says.
func (o *options) outputFlagSaying(fs *pflag.FlagSet, def string, formats ...string) {
	o.formats = formats
	fs.StringVarP(&o.output, "output", "o", "", "`FORMAT`: "+strings.Join(formats, ", ")+" (default: "+def+")")
}

func (o *options) exampleFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&o.example, "example", false, "run on the walkthrough's example files embedded from examples/cli (pools, catalog, and a state observed whole)")
}

func (o *options) strictFlag(fs *pflag.FlagSet, def bool) {
	o.strict = def
	usage := "refuse (exit 3) every StateUnverified and every UnknownField warning: a plan that could not look, or input it did not understand, does not pass"
	if def {
		usage += "; the default here, since Helm drops a post-renderer's standard error on success (--strict=false to let them pass as warnings)"
	}
	fs.BoolVar(&o.strict, "strict", def, usage)
}

func (o *options) progressFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&o.progress, "progress", false, "print progress on standard error for large inputs even when it is not a terminal")
}

// check refuses flags that cannot go together.
func (o *options) check() error {
	if o.output != human && !slices.Contains(o.formats, o.output) {
		return badUsage("-o %q is not one of %s", o.output, strings.Join(o.formats, ", "))
	}
	if o.state != "" && (o.kubeconfig != "" || o.context != "") {
		return badUsage("--state and --kubeconfig (or --context) both give the cluster's state; pass one")
	}
	if o.example && (len(o.files) > 0 || o.catalog != "" || o.state != "" || o.kubeconfig != "" || o.context != "") {
		return badUsage("--example brings its own files; pass it alone, or pass the files without it")
	}
	if o.observed.set && o.state == "" {
		return badUsage("--observed says what a --state file covers; pass it with --state")
	}
	if stdin := countStdin(append(slices.Clone(o.files), o.catalog, o.state)...); stdin > 1 {
		return badUsage("standard input (-) is named %d times; it can be read once", stdin)
	}
	if o.cluster {
		if _, err := clientcmd.ParseTimeout(o.requestTimeout); err != nil {
			return badUsage("--request-timeout %q: %v", o.requestTimeout, err)
		}
	}
	if o.allNamespaces && o.namespace != "" {
		return badUsage("-A (--all-namespaces) and -n (--namespace) do not go together")
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

// catalogDefaultHelp is, for a command's help, where the catalog comes
// from without --catalog, as loadCatalog finds it.
var catalogDefaultHelp = `Without --catalog the catalog is the values of its HelmRelease read from
the cluster (--catalog-release, default ` + catalogrelease.Default.String() + `:
spec.values over spec.valuesFrom); a release that does not exist is a catalog
not deployed, which serves no golden. Only where the release cannot be read
(no cluster is read, as with --state; the HelmRelease API is not served;
get on it is forbidden) is the catalog read back from the goldens in the cluster's state,
where a retired golden counts as an entry; standard error then says so, and
why.`
