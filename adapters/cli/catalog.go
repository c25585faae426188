package cli

import (
	"flag"
	"fmt"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
)

var renderCommand = &command{
	name:     "catalog render",
	summary:  "render the catalog's golden DataVolumes",
	synopsis: "catalog render --catalog CATALOG.yaml [--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH] [-o yaml|json]",
	about: `Renders one golden DataVolume per catalog entry (none when the catalog is
disabled) as the catalog chart does, and guards the goldens that exist in the
cluster against edits (CatalogEntryImmutable). It names the goldens in
cozy-public that no entry manages any more. Without -o it prints the goldens
as YAML documents on standard output and the rest on standard error.`,
	example: `worker-image catalog render --example
worker-image catalog render --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml -o json`,
	flags: func(fs *flag.FlagSet, o *options) {
		o.catalogFlag(fs, "CATALOG.yaml: the kubernetes-worker-image package's values")
		o.stateFlags(fs)
		o.outputFlag(fs, yamlOut, jsonOut)
		o.exampleFlag(fs)
	},
	run: runRender,
}

func runRender(a *app, o *options, args []string) error {
	if len(args) > 0 {
		return badUsage("unexpected argument %q", args[0])
	}
	if o.catalog == "" && !o.example {
		return badUsage("--catalog CATALOG.yaml is required")
	}
	snap, err := a.snapshot(o, catalog.RenderNeeds, false)
	if err != nil {
		return err
	}
	cat, err := a.loadCatalog(o, snap)
	if err != nil {
		return err
	}
	res, rerr := catalog.Render(cat, snap)
	if o.output != human {
		if err := writeData(a.stdout, o.output, res); err != nil {
			return err
		}
	} else {
		for i := range res.Goldens {
			if err := a.writeGolden(&res.Goldens[i]); err != nil {
				return err
			}
		}
		if len(res.Unmanaged) > 0 {
			fmt.Fprintf(a.stderr, "unmanaged goldens (no entry manages them; see catalog prune):\n")
			for _, n := range res.Unmanaged {
				fmt.Fprintf(a.stderr, "  %s\n", n)
			}
		}
		printWarnings(a.stderr, res.Warnings)
		printRefusals(a.stderr, res.Refusals)
	}
	if rerr != nil {
		return errRefused
	}
	return nil
}

// writeGolden prints a golden as the catalog chart renders it, or, for a
// live golden's spec reproduced whole, as YAML.
func (a *app) writeGolden(dv *cdiv1.DataVolume) error {
	if text, err := helm.GoldenText(dv); err == nil {
		_, err = fmt.Fprintf(a.stdout, "---\n%s", text)
		return err
	}
	data, err := yaml.Marshal(dv)
	if err != nil {
		return failed("encode the golden: %v", err)
	}
	_, err = fmt.Fprintf(a.stdout, "---\n%s", data)
	return err
}

var consumersCommand = &command{
	name:     "catalog consumers",
	summary:  "list the disks that clone a golden",
	synopsis: "catalog consumers GOLDEN (--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH) [-o yaml|json]",
	about: `Lists every DataVolume and PVC, in any namespace, that clones the golden
GOLDEN (by the disk annotation or by its pvc source), with its pool: answer
"does anything still clone this?" before deleting a golden by hand.`,
	example: `worker-image catalog consumers talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.12.4 --example
worker-image catalog consumers GOLDEN --kubeconfig ~/.kube/config -o json`,
	flags: func(fs *flag.FlagSet, o *options) {
		o.stateFlags(fs)
		o.outputFlag(fs, yamlOut, jsonOut)
		o.exampleFlag(fs)
	},
	run: runConsumers,
}

func runConsumers(a *app, o *options, args []string) error {
	if len(args) != 1 {
		return badUsage("name one golden, as in catalog consumers talos-worker-<schematicID>-<version>")
	}
	if !o.hasState() {
		return badUsage("consumers reads the cluster: pass --state or --kubeconfig")
	}
	snap, err := a.snapshot(o, catalog.ConsumersNeeds, false)
	if err != nil {
		return err
	}
	res := catalog.Consumers(args[0], snap)
	if o.output != human {
		if err := writeData(a.stdout, o.output, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "golden %s: %d %s\n", res.Golden, len(res.Consumers), plural(len(res.Consumers), "consumer"))
		for _, c := range res.Consumers {
			fmt.Fprintf(a.stdout, "  %s %s/%s pool %s\n", c.Kind, c.Namespace, c.Name, orNone(c.Pool))
		}
	}
	printWarnings(a.stderr, res.Warnings)
	return nil
}

var pruneCommand = &command{
	name:     "catalog prune",
	summary:  "report the unmanaged goldens that are safe to delete",
	synopsis: "catalog prune --catalog CATALOG.yaml (--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH) [-o yaml|json]",
	about: `Reports, of the goldens in cozy-public that no catalog entry manages any more,
those that nothing clones (safe to delete) and those still cloned, with their
consumers. A report only: nothing is deleted. When DataVolumes or PVCs could
not be read everywhere, nothing is reported safe to delete: a --state file's
count for every namespace only when --observed names them (or all), since a
dump of some namespaces holds objects too.`,
	example: `worker-image catalog prune --example
worker-image catalog prune --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --observed all -o json`,
	flags: func(fs *flag.FlagSet, o *options) {
		o.catalogFlag(fs, "CATALOG.yaml: the kubernetes-worker-image package's values")
		o.stateFlags(fs)
		o.outputFlag(fs, yamlOut, jsonOut)
		o.exampleFlag(fs)
	},
	run: runPrune,
}

func runPrune(a *app, o *options, args []string) error {
	if len(args) > 0 {
		return badUsage("unexpected argument %q", args[0])
	}
	if o.catalog == "" && !o.example {
		return badUsage("--catalog CATALOG.yaml is required: the goldens it no longer manages are the ones to report")
	}
	if !o.hasState() {
		return badUsage("prune reads the cluster: pass --state or --kubeconfig")
	}
	snap, err := a.snapshot(o, catalog.PruneNeeds, true)
	if err != nil {
		return err
	}
	cat, err := a.loadCatalog(o, snap)
	if err != nil {
		return err
	}
	if rs := cat.Unreadable(); len(rs) > 0 {
		// Values the chart cannot read do not say which goldens they manage.
		printRefusals(a.stderr, rs)
		return errRefused
	}
	rep := catalog.Prune(cat, snap)
	if o.output != human {
		if err := writeData(a.stdout, o.output, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "safe to delete (unmanaged, nothing clones them): %d\n", len(rep.SafeToDelete))
		for _, n := range rep.SafeToDelete {
			fmt.Fprintf(a.stdout, "  %s\n", n)
		}
		fmt.Fprintf(a.stdout, "kept (unmanaged, still cloned): %d\n", len(rep.Kept))
		for _, k := range rep.Kept {
			fmt.Fprintf(a.stdout, "  %s\n", k.Name)
			for _, c := range k.Consumers {
				fmt.Fprintf(a.stdout, "    %s %s/%s pool %s\n", c.Kind, c.Namespace, c.Name, orNone(c.Pool))
			}
		}
	}
	printWarnings(a.stderr, rep.Warnings)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
