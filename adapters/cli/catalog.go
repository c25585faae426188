package cli

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

func (a *app) catalogCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "render, inspect and prune the catalog of golden images",
		Long: `The catalog of golden Talos images in cozy-public: render its goldens, list
what clones a golden, and report the goldens no entry manages that nothing
clones any more.`,
		Example: a.examples("worker-image catalog render --example\nworker-image catalog prune --example"),
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badUsage("no command \"catalog %s\"; the catalog's commands are render, consumers and prune", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(a.renderCommand(), a.consumersCommand(), a.pruneCommand(), a.imagesCommand())
	return cmd
}

// runE is a command's RunE: the flags checked, then run.
func (a *app) runE(o *options, run func(o *options, args []string) error) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		if err := o.check(); err != nil {
			return err
		}
		a.showProgress = o.progress
		return run(o, args)
	}
}

func (a *app) renderCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "render --catalog CATALOG.yaml [--state STATE.yaml [--observed KIND,...]] [-o yaml|json]",
		Short: "render the catalog's golden DataVolumes",
		Long: `Renders one golden DataVolume per catalog entry (none when the catalog is
disabled) as the catalog chart does, and guards the goldens that exist in the
cluster against edits (CatalogEntryImmutable). It names the goldens in
cozy-public that no entry manages any more. Without -o it prints the goldens
as YAML documents on standard output, and the unmanaged goldens, warnings
and refusals on standard error.

` + releaseCatalogHelp,
		Example: a.examples(`worker-image catalog render --example
worker-image catalog render --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml -o json`),
		Args: noArgs,
		RunE: a.runE(o, a.runRender),
	}
	fs := cmd.Flags()
	o.catalogFlags(fs, "`CATALOG.yaml`: the kubernetes-worker-image package's values", false)
	o.stateFlags(fs)
	o.outputFlagSaying(fs, "the goldens as the catalog chart renders them, YAML documents on standard output, the rest on standard error", yamlOut, jsonOut)
	o.strictFlag(fs, false)
	o.progressFlag(fs)
	o.exampleFlag(fs)
	return cmd
}

// noArgs refuses positional arguments, as a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return badUsage("unexpected argument %q", args[0])
	}
	return nil
}

func (a *app) runRender(o *options, _ []string) error {
	v, err := a.snapshot(o, catalog.RenderNeeds, false)
	if err != nil {
		return err
	}
	cat, err := a.releaseCatalog(o, v, "render")
	if err != nil {
		return err
	}
	res, rerr := catalog.Render(cat, v.snap)
	v.explain(res.Warnings)
	if o.strict {
		var add guard.Refusals
		res.Warnings, add = strictRefusals(res.Warnings)
		res.Refusals = append(res.Refusals, add...)
		if len(add) > 0 {
			res.Goldens = []cdiv1.DataVolume{}
			rerr = res.Refusals.Err()
		}
	}
	// The goldens no entry manages are retired: say what still points at
	// each, from a read of every consumer.
	radii := []catalog.Radius{}
	cv := v
	if len(res.Unmanaged) > 0 {
		cv = a.consumerView(v)
		idx := catalog.NewConsumerIndex(cv.snap, plan.PoolGolden)
		for _, n := range res.Unmanaged {
			radii = append(radii, idx.Radius(n))
		}
	}
	if o.output != human {
		if err := writeData(a.stdout, o.output, withKey(withKey(res, "blastRadius", radii), "catalog", a.catalogFrom)); err != nil {
			return err
		}
	} else {
		a.sayCatalog()
		for i := range res.Goldens {
			if err := a.writeGolden(&res.Goldens[i]); err != nil {
				return err
			}
		}
		if len(res.Unmanaged) > 0 {
			printf(a.stderr, "unmanaged goldens (no entry manages them; see catalog prune):\n")
			for i, n := range res.Unmanaged {
				printf(a.stderr, "  %s: %s\n", n, pointAt(radii[i]))
			}
			if why := cv.unknownRadius(radii); why != "" {
				printf(a.stderr, "  (%s)\n", why)
			}
		}
		summary := v.summary()
		printWarnings(a.stderr, res.Warnings, summary)
		printRefusals(a.stderr, res.Refusals)
		summary.print(a.stderr)
	}
	if rerr != nil {
		return errRefused
	}
	return nil
}

// summary gathers an offline run's StateUnverified, nil otherwise.
func (v view) summary() *offlineSummary {
	if v.offline {
		return &offlineSummary{}
	}
	return nil
}

// writeGolden prints a golden as the catalog chart renders it, or, for a
// live golden's spec reproduced whole or an image catalog's golden, as
// YAML, without the empty status a chart never renders.
func (a *app) writeGolden(dv *cdiv1.DataVolume) error {
	if text, err := helm.GoldenText(dv); err == nil {
		_, err = fmt.Fprintf(a.stdout, "---\n%s", escapeLines(text))
		return err
	}
	doc := struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta       `json:"metadata"`
		Spec            cdiv1.DataVolumeSpec    `json:"spec"`
		Status          *cdiv1.DataVolumeStatus `json:"status,omitempty"`
	}{TypeMeta: dv.TypeMeta, Metadata: dv.ObjectMeta, Spec: dv.Spec}
	if !reflect.ValueOf(dv.Status).IsZero() {
		doc.Status = &dv.Status
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return failed("encode the golden: %v", err)
	}
	_, err = fmt.Fprintf(a.stdout, "---\n%s", escapeLines(string(data)))
	return err
}

func (a *app) consumersCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "consumers GOLDEN (--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH) [-o yaml|json|wide]",
		Short: "list what clones a golden: disks, templates, VirtualMachines, DataSources, pools",
		Long: `Lists everything, in any namespace, that clones the golden GOLDEN or will:
DataVolumes and PVCs (by the disk annotation or by their source),
KubevirtMachineTemplates and VirtualMachines (by their dataVolumeTemplates:
a pool scaled to zero has a template and no disk), DataSources that name it
and what clones through them, and the pools whose next render clones it
(KubernetesNodes, and HelmReleases of the kubernetes-nodes chart, a
ComputePlane's pools among them: the golden their plan clones), each with
its pool, and how many pools and templates point at it: answer "does
anything still clone this?" before deleting a golden by hand.`,
		Example: a.examples(`worker-image catalog consumers talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.12.4 --example
worker-image catalog consumers GOLDEN --kubeconfig ~/.kube/config -o json`),
		RunE: a.runE(o, a.runConsumers),
	}
	fs := cmd.Flags()
	o.stateFlags(fs)
	o.outputFlag(fs, yamlOut, jsonOut, wideOut)
	o.strictFlag(fs, false)
	o.progressFlag(fs)
	o.exampleFlag(fs)
	return cmd
}

func (a *app) runConsumers(o *options, args []string) error {
	if len(args) != 1 {
		return badUsage("name one golden, as in catalog consumers talos-worker-<schematicID>-<version>")
	}
	if !a.hasState(o) {
		return badUsage("consumers reads the cluster: pass --state, or --kubeconfig (or KUBECONFIG, --context)")
	}
	v, err := a.snapshot(o, catalog.ConsumersNeeds, false)
	if err != nil {
		return err
	}
	return a.writeConsumers(o, v, catalog.Consumers(args[0], v.snap, plan.PoolGolden), true)
}

// writeConsumers reports what clones a golden, as consumers prints it;
// pools adds each consumer's pool and the blast radius (the worker
// catalog's goldens have pools, an image's none).
func (a *app) writeConsumers(o *options, v view, res catalog.ConsumersResult, pools bool) error {
	v.explain(res.Warnings)
	// A kind that could not be read may hide a consumer: the list is a
	// floor, not the answer, and the run is unverified.
	unread := v.isUnverified(o, res.Warnings)
	var refusals guard.Refusals
	if o.strict {
		res.Warnings, refusals = strictRefusals(res.Warnings)
	}
	switch o.output {
	case jsonOut, yamlOut:
		out := withRefusals(res, refusals)
		if unread {
			out = withKey(out, "outcome", unverified)
		}
		if err := writeData(a.stdout, o.output, out); err != nil {
			return err
		}
	case wideOut:
		a.writeConsumersWide(res.Consumers)
	default:
		count := sprintf("%d %s", len(res.Consumers), plural(len(res.Consumers), "consumer"))
		if unread {
			count = "unverified, at least " + count
		}
		if pools {
			printf(a.stdout, "golden %s: %s; %s\n", res.Golden, count, pointAt(res.BlastRadius))
		} else {
			printf(a.stdout, "golden %s: %s\n", res.Golden, count)
		}
		for _, c := range res.Consumers {
			if pools {
				printf(a.stdout, "  %s %s/%s pool %s\n", c.Kind, c.Namespace, c.Name, orNone(c.Pool))
			} else {
				printf(a.stdout, "  %s %s/%s\n", c.Kind, c.Namespace, c.Name)
			}
		}
	}
	printWarnings(a.stderr, res.Warnings, nil)
	printRefusals(a.stderr, refusals)
	if len(refusals) > 0 {
		return errRefused
	}
	if unread {
		v.sayUnread(a.stderr, "the consumers of "+res.Golden+" were listed without reading every kind that may clone it", unreadKinds(res.Warnings), false)
		return errUnverified
	}
	return nil
}

func (a *app) writeConsumersWide(cs []catalog.Consumer) {
	var b strings.Builder
	b.WriteString("KIND\tNAMESPACE\tNAME\tPOOL\n")
	for _, c := range cs {
		b.WriteString(sprintf("%s\t%s\t%s\t%s\n", c.Kind, c.Namespace, c.Name, orDash(c.Pool)))
	}
	writeTable(a.stdout, b.String())
}

// withRefusals is v, and a "refusals" key when --strict made any: the
// JSON shapes of the commands gain keys, never lose them.
func withRefusals(v any, refusals guard.Refusals) any {
	if len(refusals) == 0 {
		return v
	}
	return withKey(v, "refusals", refusals)
}

// withKey is the JSON object v with one key more.
func withKey(v any, key string, value any) any {
	data, err := jsonObject(v)
	if err != nil {
		return v
	}
	data[key] = value
	return data
}

func (a *app) pruneCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "prune --catalog CATALOG.yaml (--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH) [-o yaml|json]",
		Short: "report the unmanaged goldens that are safe to delete",
		Long: `Reports, of the goldens in cozy-public that no catalog entry manages any more,
those that nothing clones (safe to delete) and those still cloned, with their
consumers (disks, KubevirtMachineTemplates, VirtualMachines, DataSources, and
the pools whose next render clones them: a golden a plan clones is never safe
to delete). A report only: nothing is deleted. When any of those kinds could not be read
everywhere, nothing is reported safe to delete, and a warning names the kind:
a --state file's count for every namespace only when --observed names them
(or all), since a dump of some namespaces holds objects too.

` + releaseCatalogHelp,
		Example: a.examples(`worker-image catalog prune --example
worker-image catalog prune --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --observed all -o json`),
		Args: noArgs,
		RunE: a.runE(o, a.runPrune),
	}
	fs := cmd.Flags()
	o.catalogFlags(fs, "`CATALOG.yaml`: the kubernetes-worker-image package's values", false)
	o.stateFlags(fs)
	o.outputFlag(fs, yamlOut, jsonOut)
	o.strictFlag(fs, false)
	o.progressFlag(fs)
	o.exampleFlag(fs)
	return cmd
}

func (a *app) runPrune(o *options, _ []string) error {
	if !a.hasState(o) {
		return badUsage("prune reads the cluster: pass --state, or --kubeconfig (or KUBECONFIG, --context)")
	}
	v, err := a.snapshot(o, catalog.PruneNeeds, true)
	if err != nil {
		return err
	}
	cat, err := a.releaseCatalog(o, v, "prune")
	if err != nil {
		return err
	}
	if rs := cat.Unreadable(); len(rs) > 0 {
		// Values the chart cannot read do not say which goldens they manage.
		printRefusals(a.stderr, rs)
		return errRefused
	}
	rep := catalog.Prune(cat, v.snap, plan.PoolGolden)
	v.explain(rep.Warnings)
	// A consumer kind that could not be read may hide what clones any
	// golden: nothing is safe to delete, and the run is unverified.
	unread := v.isUnverified(o, rep.Warnings)
	catWarnings := cat.Warnings()
	var refusals guard.Refusals
	if o.strict {
		var more guard.Refusals
		rep.Warnings, refusals = strictRefusals(rep.Warnings)
		catWarnings, more = strictRefusals(catWarnings)
		refusals = append(refusals, more...)
	}
	if o.output != human {
		out := withKey(withRefusals(rep, refusals), "catalog", a.catalogFrom)
		if unread {
			out = withKey(out, "outcome", unverified)
		}
		if err := writeData(a.stdout, o.output, out); err != nil {
			return err
		}
	} else {
		a.sayCatalog()
		if unread {
			printf(a.stdout, "unverified: none can be called unused, since a kind that may clone them was not read\n")
		} else {
			printf(a.stdout, "safe to delete (unmanaged, nothing clones them): %d\n", len(rep.SafeToDelete))
		}
		for _, n := range rep.SafeToDelete {
			printf(a.stdout, "  %s\n", n)
		}
		printf(a.stdout, "kept (unmanaged, still cloned): %d\n", len(rep.Kept))
		for _, k := range rep.Kept {
			printf(a.stdout, "  %s: %s\n", k.Name, pointAt(k.BlastRadius))
			for _, c := range k.Consumers {
				printf(a.stdout, "    %s %s/%s pool %s\n", c.Kind, c.Namespace, c.Name, orNone(c.Pool))
			}
		}
	}
	printWarnings(a.stderr, catWarnings, nil)
	printWarnings(a.stderr, rep.Warnings, nil)
	printRefusals(a.stderr, refusals)
	if len(refusals) > 0 {
		return errRefused
	}
	if unread {
		v.sayUnread(a.stderr, "no unmanaged golden is reported safe to delete, since what may clone one was not read", unreadKinds(rep.Warnings), false)
		return errUnverified
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// releaseCatalogHelp is, for render's and prune's help, where their
// catalog comes from (releaseCatalog).
var releaseCatalogHelp = `The catalog is --catalog, else the values of its HelmRelease read from the
cluster (--catalog-release, default ` + catalogrelease.Default.String() + `:
spec.values over spec.valuesFrom), never one read back from the goldens,
which would manage every golden there is: where the release cannot be read
(no cluster is read, as with --state; the HelmRelease API is not served;
get on it is forbidden), --catalog is required.`

// releaseCatalog is the catalog render and prune work on: the --catalog
// file's or the catalog release's, never one read back from the goldens,
// which would manage every golden there is.
func (a *app) releaseCatalog(o *options, v view, command string) (*catalog.Catalog, error) {
	cat, _, err := a.loadCatalog(o, v)
	if err != nil {
		return nil, err
	}
	if s := a.catalogFrom; s.Source == fromReadBack {
		return nil, badUsage("%s needs the catalog's values, and the catalog release %s could not be read (%s): --catalog CATALOG.yaml is required (values, or the HelmRelease as kubectl get hr -o yaml prints it)", command, s.Release, s.Fallback)
	}
	return cat, nil
}
