package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	example "github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// diffOptions are diff's own flags: the change, and what the template
// names and the transfer are computed from.
type diffOptions struct {
	afterPools      string
	afterCatalog    string
	set             []string
	cozystackValues string
	imageSize       string
}

func (a *app) diffCommand() *cobra.Command {
	o, d := &options{}, &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff [kubernetesnodes/NAME ...] [-f POOL.yaml ...] [--catalog CATALOG.yaml] [--after-pools POOL.yaml] [--after-catalog CATALOG.yaml] [--set KEY=VALUE ...] [--cozystack-values VALUES.yaml] [--state STATE.yaml [--observed KIND,...]] [-n NAMESPACE | -A] [-o yaml|json|wide]",
		Short: "say which pools re-image, and in what order, when a flavor or a default moves",
		Long: `Plans every pool twice, before and after a change, against the same cluster
state, and says which pools roll (their KubevirtMachineTemplate's text
changes, so every worker is re-imaged), what must happen first, and what the
rollout moves over the network.

The pools and the catalog before the change are plan's: -f files (or bare
values with --name), or the cluster's pools (kubernetesnodes/NAME, -n, -A);
--catalog, or without it the catalog release's (below).
The change is any of --after-pools (KubernetesNodes documents that replace
every pool of -f: a pool they do not hold is removed), --after-catalog (the
catalog's values after the change), and --set KEY=VALUE (repeatable): a new
default of the kubernetes-nodes chart, for the pools that do not set KEY
themselves, as a Cozystack upgrade moves one (--set talos.version=v1.13.7).
VALUE is read as values.yaml holds it (YAML: v1.13.7 and 30Gi are strings,
20 a number, null no default); an empty VALUE is "".

Per pool it prints whether it rolls, its source and golden before and after
(and the golden's state: imported, importing, not-created, not-in-catalog,
import-failed, unknown), its plan's refusals after the change, and its
workers, counted from its disks in the cluster. The KubevirtMachineTemplate
names, the chart's hash of the whole template, need the platform's values
the template also holds: read from each tenant's cozystack-values Secret
when diff reads a cluster (each pool's own namespace's, under -A too), or
--cozystack-values, the values.yaml of such a Secret, for every pool. Then come the steps, in order (add-catalog-entry,
wait-for-golden, roll-pool; a pool refused after the change for what no step
fixes does not roll and has none), and the transfer: bytes pulled over HTTP
(--image-size × workers re-imaged from an Image Factory, and one import per
golden still to be created) against bytes moved by storage-layer clones.
Pools whose plan after the change is refused come first.

` + catalogDefaultHelp + `

Exit status: 0 when every plan after the change is planned, 3 when one is
refused.`,
		Example: a.examples(`worker-image diff --example --set talos.version=v1.13.7
worker-image diff -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --set talos.version=v1.13.7
worker-image diff -A --after-catalog new-catalog.yaml -o json
worker-image diff -n tenant-demo --set talos.version=v1.13.7 --cozystack-values cozystack-values.yaml -o wide`),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			a.showProgress = o.progress
			return a.runDiff(o, d, args)
		},
	}
	fs := cmd.Flags()
	o.fileFlag(fs, "`POOL.yaml`: the pools before the change, KubernetesNodes documents (or bare values with --name)")
	o.catalogFlags(fs, "`CATALOG.yaml`: the catalog before the change, the kubernetes-worker-image package's values", true)
	fs.StringVar(&d.afterPools, "after-pools", "", "`POOL.yaml`: the pools after the change, KubernetesNodes documents replacing every pool before it (\"-\" for standard input)")
	fs.StringVar(&d.afterCatalog, "after-catalog", "", "`CATALOG.yaml`: the catalog's values after the change (\"-\" for standard input)")
	fs.StringArrayVar(&d.set, "set", nil, "`KEY=VALUE`: a new kubernetes-nodes chart default after the change, for the pools that do not set KEY (repeat it for several)")
	fs.StringVar(&d.cozystackValues, "cozystack-values", "", "`VALUES.yaml`: the values.yaml of a tenant's cozystack-values Secret (_cluster, _namespace), which the KubevirtMachineTemplate's name also hashes; for every pool, over each tenant's Secret read from the cluster")
	fs.StringVar(&d.imageSize, "image-size", whatif.DefaultImageSize, "`QUANTITY` one import of the Talos image pulls over HTTP, and one clone of its golden moves")
	o.stateFlags(fs)
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "compare the KubernetesNodes of every namespace of the cluster")
	o.outputFlag(fs, yamlOut, jsonOut, wideOut)
	fs.StringVar(&o.name, "name", "", "`NAME`: read POOL.yaml (and --after-pools) as the bare values (spec) of the KubernetesNodes of this name")
	o.strictFlag(fs, false)
	o.progressFlag(fs)
	o.exampleFlag(fs)
	return cmd
}

func (a *app) runDiff(o *options, d *diffOptions, args []string) error {
	names, fromCluster, err := poolSource("diff", o, args)
	if err != nil {
		return err
	}
	if d.afterPools == "" && d.afterCatalog == "" && len(d.set) == 0 {
		return badUsage("name the change: --after-pools POOL.yaml, --after-catalog CATALOG.yaml or --set KEY=VALUE")
	}
	if stdin := countStdin(append(slices.Clone(o.files), o.catalog, o.state, d.afterPools, d.afterCatalog, d.cozystackValues)...); stdin > 1 {
		return badUsage("standard input (-) is named %d times; it can be read once", stdin)
	}
	imageSize, err := size.Quantity(d.imageSize)
	if err != nil || imageSize.Sign() < 0 {
		return badUsage("--image-size %q is not a size; give a quantity such as %s", d.imageSize, whatif.DefaultImageSize)
	}
	defaults, err := chartDefaults(d.set)
	if err != nil {
		return err
	}
	before, err := a.diffPools(o, names, fromCluster)
	if err != nil {
		return err
	}
	ch := whatif.Change{Defaults: defaults}
	if d.afterPools != "" {
		inputs, err := a.readInputs([]string{d.afterPools})
		if err != nil {
			return err
		}
		if ch.Pools, err = a.poolValues(o, inputs); err != nil {
			return err
		}
	}
	var platform *whatif.Platform
	if d.cozystackValues != "" {
		data, name, err := a.readFile(d.cozystackValues)
		if err != nil {
			return err
		}
		m, err := values(name, data)
		if err != nil {
			return err
		}
		if platform, err = whatif.NewPlatform(m); err != nil {
			return unusable("%s: %v", name, err)
		}
	}
	v, err := a.snapshot(o, func() state.Request {
		return catalogNeeds(o, whatif.Needs(before, ch))
	}, false)
	if err != nil {
		return err
	}
	var platforms map[string]*whatif.Platform
	if platform == nil && v.cluster {
		if platforms, err = a.tenantPlatforms(before); err != nil {
			return err
		}
	}
	cat, runWarnings, err := a.loadCatalog(o, v)
	if err != nil {
		return err
	}
	if d.afterCatalog != "" {
		data, name, err := a.readFile(d.afterCatalog)
		if err != nil {
			return err
		}
		m, err := values(name, data)
		if err != nil {
			return err
		}
		ch.Catalog = catalog.Compile(catalog.DecodeValues(m))
		runWarnings = append(runWarnings, ch.Catalog.Warnings()...)
	}
	in := whatif.Input{Pools: before, Catalog: cat, Snapshot: v.snap, Platform: platform, Platforms: platforms, ImageSize: imageSize}
	if o.strict {
		// Decided inside Diff, so that a pool --strict refuses neither
		// rolls nor gets a step.
		in.Decide = func(r plan.Result) plan.Result {
			v.explain(r.Warnings)
			return strictPlan(r)
		}
	}
	rep, err := whatif.Diff(in, ch)
	if err != nil {
		return unusable("%v", err)
	}
	var runRefusals guard.Refusals
	for i := range rep.Pools {
		p := &rep.Pools[i]
		for _, s := range []*whatif.Side{p.Before, p.After} {
			if s != nil {
				v.explain(s.Warnings)
			}
		}
	}
	// A plan of either side that could not read a kind it needed is not
	// a diff that passed: the run is unverified, as plan's is.
	var sideWarnings []guard.Warnings
	clones := false
	for _, p := range rep.Pools {
		for _, s := range []*whatif.Side{p.Before, p.After} {
			if s != nil && s.Outcome == plan.Planned {
				sideWarnings = append(sideWarnings, s.Warnings)
				clones = clones || s.Source == plan.Clone
			}
		}
	}
	if clones {
		// The catalog's own (a read-back's StateUnverified) matter to a
		// pool that clones.
		sideWarnings = append(sideWarnings, runWarnings)
	}
	unread := v.isUnverified(o, sideWarnings...)
	if o.strict {
		runWarnings, runRefusals = strictRefusals(runWarnings)
	}
	switch o.output {
	case jsonOut, yamlOut:
		out := withKey(rep, "catalog", a.catalogFrom)
		if unread {
			out = withKey(out, "outcome", unverified)
		}
		if err := writeData(a.stdout, o.output, out); err != nil {
			return err
		}
	case wideOut:
		a.sayCatalog()
		a.writeDiffWide(&rep, v.summary())
	default:
		a.sayCatalog()
		a.writeDiff(&rep, v.summary())
	}
	if o.output != jsonOut && o.output != yamlOut {
		printWarnings(a.stderr, runWarnings, nil)
		printRefusals(a.stderr, runRefusals)
	}
	if len(runRefusals) > 0 || rep.Refused() {
		return errRefused
	}
	if unread {
		v.printUnread(a.stderr, "the change was planned without reading what its guards need", unreadKinds(sideWarnings...))
		return errUnverified
	}
	return nil
}

// diffPools are the pools before the change: the -f files' (the
// example's with --example), or the cluster's.
func (a *app) diffPools(o *options, names []string, fromCluster bool) ([]whatif.PoolValues, error) {
	if !fromCluster {
		inputs := []input{{example.PoolsFile, example.Pools}}
		if !o.example {
			var err error
			if inputs, err = a.readInputs(o.files); err != nil {
				return nil, err
			}
		}
		return a.poolValues(o, inputs)
	}
	objs, err := a.clusterPoolObjects(o, names, o.allNamespaces)
	if err != nil {
		return nil, err
	}
	pools := make([]whatif.PoolValues, 0, len(objs))
	for i := range objs {
		p, err := whatif.PoolValuesFromObject(objs[i].Object)
		if err != nil {
			return nil, failed("%s %s/%s: %v", plan.PoolKind, objs[i].GetNamespace(), objs[i].GetName(), err)
		}
		pools = append(pools, p)
	}
	return pools, nil
}

// chartDefaults reads --set KEY=VALUE: VALUE as values.yaml holds it, an
// empty VALUE the empty string, as Helm's --set reads it.
func chartDefaults(set []string) ([]whatif.ChartDefault, error) {
	out := make([]whatif.ChartDefault, 0, len(set))
	for _, s := range set {
		key, raw, ok := strings.Cut(s, "=")
		if !ok || key == "" {
			return nil, badUsage("--set %q is not KEY=VALUE; write it as --set talos.version=v1.13.7", s)
		}
		var value any = ""
		if raw != "" {
			if err := yaml.Unmarshal([]byte(raw), &value); err != nil {
				return nil, badUsage("--set %s: %q is not a YAML value (%v); quote a string that YAML misreads, as in --set '%s=\"%s\"'", key, raw, err, key, raw)
			}
		}
		out = append(out, whatif.ChartDefault{Key: key, Value: value})
	}
	return out, nil
}

// writeDiff prints, per pool, whether it rolls, its two sides, its
// template names, workers, and its plan's findings after the change; then
// the steps, the transfer and a count.
func (a *app) writeDiff(rep *whatif.Report, summary *offlineSummary) {
	w := a.stdout
	rolling, refused := 0, 0
	platformNote := ""
	for i, p := range rep.Pools {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if p.Rolls {
			rolling++
		}
		printf(w, "%s/%s: %s\n", p.Namespace, p.Name, diffHeadline(p))
		printf(w, "%sbefore: %s\n", humanIndent, sideLine(p.Before))
		printf(w, "%safter:  %s\n", humanIndent, sideLine(p.After))
		line, note := templateLine(p)
		if line != "" {
			if a := p.After; a != nil && a.Outcome == plan.Refused && a.Template.Name != "" {
				line += " (once its steps are done)"
			}
			printf(w, "%stemplate: %s\n", humanIndent, line)
		}
		if note != "" {
			platformNote = note
		}
		if b, a := p.Before, p.After; b != nil && a != nil && b.KubernetesVersion != a.KubernetesVersion {
			printf(w, "%sversion: %s → %s (CAPI replaces every Machine of the pool)\n", humanIndent, versionText(b), versionText(a))
		}
		if p.Before != nil {
			printf(w, "%sworkers: %s\n", humanIndent, workersText(p))
		}
		if s := p.After; s != nil {
			for _, x := range s.Warnings {
				if !summary.takes(x) {
					printf(w, "%swarning %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail, x.Cause))
				}
			}
			if s.Outcome == plan.Refused {
				refused++
				for _, x := range s.Refusals {
					printf(w, "%srefused %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail, ""))
				}
			}
		}
	}
	fmt.Fprintln(w)
	writeStepsAndTransfer(w, rep)
	n := len(rep.Pools)
	printf(w, "%d %s: %d rolling, %d refused after the change\n", n, plural(n, "pool"), rolling, refused)
	if platformNote != "" {
		printf(a.stderr, "note: KubevirtMachineTemplate names not computed: %s; pass --cozystack-values with the values.yaml of a tenant's cozystack-values Secret\n", platformNote)
	}
	summary.print(a.stderr)
}

// writeStepsAndTransfer prints the steps, numbered, and the transfer.
func writeStepsAndTransfer(w io.Writer, rep *whatif.Report) {
	if len(rep.Steps) == 0 {
		printf(w, "steps: none\n")
	} else {
		printf(w, "steps:\n")
		for i, s := range rep.Steps {
			printf(w, "%s%d. %s %s\n", humanIndent, i+1, s.Action, s.Target)
		}
	}
	t := rep.Transfer
	printf(w, "transfer: %s over HTTP, %s by storage-layer clones\n", bytesText(t.HTTPBytes), bytesText(t.CloneBytes))
	if len(t.Unverified) > 0 {
		printf(w, "%sworkers not counted for %s: the DataVolumes and PersistentVolumeClaims of their namespaces were not read\n", humanIndent, strings.Join(t.Unverified, ", "))
	}
}

// diffHeadline says in a few words what the change does to a pool.
func diffHeadline(p whatif.PoolDiff) string {
	var b strings.Builder
	switch {
	case p.After == nil:
		return "removed by the change"
	case p.Before == nil:
		b.WriteString("added by the change")
	case p.Rolls:
		b.WriteString("rolls")
	default:
		b.WriteString("does not roll")
	}
	if p.After.Outcome == plan.Refused {
		n := len(p.After.Refusals)
		fmt.Fprintf(&b, "; refused after the change (%d %s)", n, plural(n, "refusal"))
		if p.Rolls {
			b.WriteString(", which its steps fix")
		}
	}
	return b.String()
}

// sideLine is a pool's source on one side of the change.
func sideLine(s *whatif.Side) string {
	switch {
	case s == nil:
		return "-"
	case s.NeededGolden != "" && s.Outcome == plan.Refused:
		return fmt.Sprintf("refused; clone of golden %s (%s)", s.NeededGolden, s.GoldenState)
	case s.Outcome == plan.Refused:
		return "refused"
	case s.NeededGolden != "":
		return fmt.Sprintf("clone of golden %s (%s)", s.NeededGolden, s.GoldenState)
	}
	if src := s.Disk.Spec.Source; src != nil && src.HTTP != nil {
		return "HTTP import from " + src.HTTP.URL
	}
	return string(s.Source)
}

// templateLine is "<before> → <after>" when a template name is known, or
// else the reason the platform's values were missing, for the run's note.
func templateLine(p whatif.PoolDiff) (string, string) {
	var names [2]string
	known, note := false, ""
	for i, s := range []*whatif.Side{p.Before, p.After} {
		switch {
		case s == nil:
			names[i] = "-"
		case s.Template.Name != "":
			names[i] = s.Template.Name
			if s.Template.From == whatif.FromCluster {
				names[i] += " (in the cluster)"
			}
			known = true
		case s.Template.Unknown == whatif.PlatformNotGiven:
			// Said once for the run, not per pool.
			names[i] = "not known"
			note = s.Template.Unknown
		default:
			names[i] = "not known (" + s.Template.Unknown + ")"
			known = true
		}
	}
	if !known {
		return "", note
	}
	return names[0] + " → " + names[1], note
}

// versionText is a side's Kubernetes version value.
func versionText(s *whatif.Side) string {
	if s.KubernetesVersion == "" {
		return "the chart's default"
	}
	return s.KubernetesVersion
}

func workersText(p whatif.PoolDiff) string {
	if p.Workers == nil {
		return "not counted (the DataVolumes and PersistentVolumeClaims of " + p.Namespace + " were not read)"
	}
	return fmt.Sprint(*p.Workers)
}

// bytesText is a byte count in GiB and in bytes.
func bytesText(n *int64) string {
	if n == nil {
		return "not known"
	}
	if *n == 0 {
		return "0 bytes"
	}
	return fmt.Sprintf("%.1f GiB (%d bytes)", float64(*n)/(1<<30), *n)
}

// writeDiffWide prints one line per pool, as kubectl's -o wide, then the
// steps and the transfer.
func (a *app) writeDiffWide(rep *whatif.Report, summary *offlineSummary) {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tROLLS\tBEFORE\tAFTER\tGOLDEN\tGOLDENSTATE\tWORKERS\tTEMPLATE\tWARNINGS\tREFUSALS")
	for _, p := range rep.Pools {
		golden, goldenState := "", ""
		var warnings, refusals []string
		if s := p.After; s != nil {
			golden, goldenState = s.NeededGolden, string(s.GoldenState)
			for _, x := range s.Refusals {
				refusals = append(refusals, string(x.Reason))
			}
			for _, x := range s.Warnings {
				if !summary.takes(x) {
					warnings = append(warnings, string(x.Reason))
				}
			}
		}
		workers := "-"
		if p.Workers != nil {
			workers = fmt.Sprint(*p.Workers)
		}
		template := "-"
		if line, _ := templateLine(p); line != "" {
			template = line
		}
		printf(tw, "%s\t%s\t%t\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Namespace, p.Name, p.Rolls, wideSide(p.Before), wideSide(p.After),
			orDash(golden), orDash(goldenState), workers, template, orDash(strings.Join(warnings, ",")), orDash(strings.Join(refusals, ",")))
	}
	tw.Flush()
	fmt.Fprintln(a.stdout)
	writeStepsAndTransfer(a.stdout, rep)
	summary.print(a.stderr)
}

func wideSide(s *whatif.Side) string {
	switch {
	case s == nil:
		return "-"
	case s.Outcome == plan.Refused:
		return "refused"
	}
	return string(s.Source)
}

// tenantValuesSecret is the Secret of a tenant namespace that holds the
// platform's values every release there merges (valuesFrom), under
// tenantValuesKey.
const (
	tenantValuesSecret = "cozystack-values"
	tenantValuesKey    = "values.yaml"
)

// tenantPlatforms are the platform's values of each namespace of the
// pools, read from its cozystack-values Secret: what --cozystack-values
// gives by hand, per tenant (-A reads each tenant's). A Secret that does
// not exist or may not be read leaves that namespace's template names
// unknown, with a note that says why.
func (a *app) tenantPlatforms(pools []whatif.PoolValues) (map[string]*whatif.Platform, error) {
	var namespaces []string
	for _, p := range pools {
		if !slices.Contains(namespaces, p.Namespace) {
			namespaces = append(namespaces, p.Namespace)
		}
	}
	slices.Sort(namespaces)
	out := make(map[string]*whatif.Platform, len(namespaces))
	for _, ns := range namespaces {
		p, err := a.tenantPlatform(ns)
		if err != nil {
			return nil, err
		}
		out[ns] = p
	}
	return out, nil
}

// tenantPlatform reads the platform's values of one namespace; nil, with
// a note, when its Secret does not exist or may not be read.
func (a *app) tenantPlatform(ns string) (*whatif.Platform, error) {
	s, err := a.conn.core.CoreV1().Secrets(ns).Get(context.Background(), tenantValuesSecret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		printf(a.stderr, "note: %s holds no %s Secret (is it a Cozystack tenant?)\n", ns, tenantValuesSecret)
		return nil, nil
	case apierrors.IsForbidden(err):
		printf(a.stderr, "note: the %s Secret of %s may not be read (forbidden: grant get on secrets/%s there, or pass --cozystack-values)\n", tenantValuesSecret, ns, tenantValuesSecret)
		return nil, nil
	case err != nil:
		return nil, failed("read the %s Secret of %s in %s: %v", tenantValuesSecret, ns, a.conn.name, err)
	}
	name := fmt.Sprintf("Secret %s/%s key %s", ns, tenantValuesSecret, tenantValuesKey)
	data, ok := s.Data[tenantValuesKey]
	if !ok {
		printf(a.stderr, "note: %s is missing\n", name)
		return nil, nil
	}
	m, err := values(name, data)
	if err != nil {
		return nil, failed("%v", err)
	}
	platform, err := whatif.NewPlatform(m)
	if err != nil {
		return nil, failed("%s: %v", name, err)
	}
	return platform, nil
}
