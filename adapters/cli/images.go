package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
)

// imagesCommand is `catalog images`: the image catalog VMDisks clone from
// (Cozystack's vm-default-images package), as `catalog` is the worker
// catalog.
func (a *app) imagesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "images",
		Short: "render, inspect and prune the image catalog VMDisks clone from",
		Long: `The image catalog of Cozystack's vm-default-images package: one golden
DataVolume vm-default-images-<name> in cozy-public per entry of images[], which
VMDisks clone (source.image.name). Its values come from --images (the values,
or the HelmRelease as kubectl get hr -o yaml prints it), else from the
HelmRelease ` + imagesRelease.String() + ` read from the cluster.`,
		Example: a.examples("worker-image catalog images render --images vm-default-images.yaml --state state.yaml\n" +
			"worker-image catalog images consumers ubuntu --kubeconfig ~/.kube/config\n" +
			"worker-image catalog images prune --kubeconfig ~/.kube/config -o json"),
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badUsage("no command \"catalog images %s\"; the image catalog's commands are render, consumers and prune", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(a.imagesRenderCommand(), a.imagesConsumersCommand(), a.imagesPruneCommand())
	return cmd
}

func (o *options) imagesFlag(fs *pflag.FlagSet) {
	fs.StringVar(&o.images, "images", "", "`IMAGES.yaml`: the vm-default-images package's values, or its HelmRelease (default: the HelmRelease "+imagesRelease.String()+" read from the cluster)")
}

func (a *app) imagesRenderCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "render [--images IMAGES.yaml] [--state STATE.yaml [--observed KIND,...]] [-o yaml|json]",
		Short: "render the image catalog's golden DataVolumes",
		Long: `Renders one golden DataVolume per image as the vm-default-images chart does,
checks that each renders on a class that exists, guards the goldens that exist
against edits (CatalogEntryImmutable: CDI refuses a change to a DataVolume's
spec), and names the goldens in cozy-public no image manages any more, which
the chart's upgrade deletes.`,
		Args: noArgs,
		RunE: a.runE(o, a.runImagesRender),
	}
	fs := cmd.Flags()
	o.imagesFlag(fs)
	o.stateFlags(fs)
	o.outputFlagSaying(fs, "the goldens as the chart renders them, YAML documents on standard output, the rest on standard error", yamlOut, jsonOut)
	o.strictFlag(fs, false)
	return cmd
}

// imageCatalog is the image catalog render and prune work on: the --images
// file's or the release's, never none.
func (a *app) imageCatalog(o *options, v view, command string) (*vmimages.Catalog, *catalogSource, error) {
	images, src, err := a.loadImages(o, v)
	if err != nil {
		return nil, nil, err
	}
	if images == nil && (src == nil || src.Source == fromReadBack) {
		why := "no cluster was read"
		if src != nil {
			why = src.Fallback
		}
		return nil, nil, badUsage("%s needs the image catalog's values, and the HelmRelease %s could not be read (%s): --images IMAGES.yaml is required", command, imagesRelease, why)
	}
	return images, src, nil
}

func (a *app) runImagesRender(o *options, _ []string) error {
	// The disks that clone a golden no image names are read too: the render
	// warns that the upgrade deletes a golden they still clone.
	v, err := a.snapshot(o, vmimages.PruneNeeds, false)
	if err != nil {
		return err
	}
	images, src, err := a.imageCatalog(o, v, "images render")
	if err != nil {
		return err
	}
	res, rerr := vmimages.Render(images, v.snap)
	v.explain(res.Warnings)
	if o.strict {
		var add guard.Refusals
		res.Warnings, add = strictRefusals(res.Warnings)
		res.Refusals = append(res.Refusals, add...)
		if len(add) > 0 {
			res.Goldens = res.Goldens[:0]
			rerr = res.Refusals.Err()
		}
	}
	if o.output != human {
		if err := writeData(a.stdout, o.output, withKey(res, "images", src)); err != nil {
			return err
		}
	} else {
		if t := imagesText(src); t != "" {
			printf(a.stderr, "%s\n", t)
		}
		for i := range res.Goldens {
			if err := a.writeGolden(&res.Goldens[i]); err != nil {
				return err
			}
		}
		if len(res.Unmanaged) > 0 {
			printf(a.stderr, "unmanaged goldens (no image manages them, and the chart's upgrade deletes them; see catalog images prune):\n")
			for _, n := range res.Unmanaged {
				printf(a.stderr, "  %s\n", n)
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

func (a *app) imagesConsumersCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "consumers IMAGE (--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH) [-o yaml|json|wide]",
		Short: "list what clones an image's golden: VM disks, VirtualMachines, DataSources",
		Long: `Lists everything, in any namespace, that clones the golden of image IMAGE
(vm-default-images-IMAGE, or that name itself): the DataVolumes of VMDisks
(vm-disk-<name>), the vm-disk HelmReleases cozystack-api serves every VMDisk
from (whose source.image.name names the image, before the DataVolume exists),
and every other disk, VirtualMachine and DataSource that clones it.`,
		RunE: a.runE(o, a.runImagesConsumers),
	}
	fs := cmd.Flags()
	o.stateFlags(fs)
	o.outputFlag(fs, yamlOut, jsonOut, wideOut)
	o.strictFlag(fs, false)
	return cmd
}

func (a *app) runImagesConsumers(o *options, args []string) error {
	if len(args) != 1 {
		return badUsage("name one image, as in catalog images consumers ubuntu")
	}
	if !a.hasState(o) {
		return badUsage("consumers reads the cluster: pass --state, or --kubeconfig (or KUBECONFIG, --context)")
	}
	v, err := a.snapshot(o, vmimages.ConsumersNeeds, false)
	if err != nil {
		return err
	}
	return a.writeConsumers(o, v, vmimages.Consumers(strings.TrimPrefix(args[0], vmimages.GoldenPrefix), v.snap), false)
}

func (a *app) imagesPruneCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "prune [--images IMAGES.yaml] (--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH) [-o yaml|json]",
		Short: "report the unmanaged image goldens that are safe to delete",
		Long: `Reports, of the goldens in cozy-public no image of the catalog manages, those
nothing clones (safe to delete) and those still cloned, with their consumers
(a VMDisk counts through its vm-disk HelmRelease before its DataVolume exists).
A report only: nothing is deleted. When a kind that may clone an image's
golden (PersistentVolumeClaim, DataVolume, VirtualMachine, DataSource,
HelmRelease; a worker pool and its KubevirtMachineTemplate never do) could
not be read everywhere, nothing is reported safe to delete.`,
		Args: noArgs,
		RunE: a.runE(o, a.runImagesPrune),
	}
	fs := cmd.Flags()
	o.imagesFlag(fs)
	o.stateFlags(fs)
	o.outputFlag(fs, yamlOut, jsonOut)
	o.strictFlag(fs, false)
	return cmd
}

func (a *app) runImagesPrune(o *options, _ []string) error {
	if !a.hasState(o) {
		return badUsage("prune reads the cluster: pass --state, or --kubeconfig (or KUBECONFIG, --context)")
	}
	v, err := a.snapshot(o, vmimages.PruneNeeds, true)
	if err != nil {
		return err
	}
	images, src, err := a.imageCatalog(o, v, "images prune")
	if err != nil {
		return err
	}
	rep := vmimages.Prune(images, v.snap)
	v.explain(rep.Warnings)
	// A kind unread may hide what clones any golden: nothing is safe to
	// delete, and the run is unverified.
	unread := v.isUnverified(o, rep.Warnings)
	var refusals guard.Refusals
	if o.strict {
		rep.Warnings, refusals = strictRefusals(rep.Warnings)
	}
	if o.output != human {
		out := withKey(withRefusals(rep, refusals), "images", src)
		if unread {
			out = withKey(out, "outcome", unverified)
		}
		if err := writeData(a.stdout, o.output, out); err != nil {
			return err
		}
	} else {
		if t := imagesText(src); t != "" {
			printf(a.stderr, "%s\n", t)
		}
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
			printf(a.stdout, "  %s: %d %s\n", k.Name, len(k.Consumers), plural(len(k.Consumers), "consumer"))
			for _, c := range k.Consumers {
				printf(a.stdout, "    %s %s/%s\n", c.Kind, c.Namespace, c.Name)
			}
		}
	}
	printWarnings(a.stderr, rep.Warnings, nil)
	printRefusals(a.stderr, refusals)
	if len(refusals) > 0 {
		return errRefused
	}
	if unread {
		v.sayUnread(a.stderr, "no unmanaged image golden is reported safe to delete, since what may clone one was not read", unreadKinds(rep.Warnings), false)
		return errUnverified
	}
	return nil
}
