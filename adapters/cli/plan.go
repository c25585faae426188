package cli

import (
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/parallel"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func (a *app) planCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "plan [kubernetesnodes/NAME ... | vmdisks[/NAME] ...] [-f POOL.yaml|VMDISK.yaml ...] [--catalog CATALOG.yaml] [--images IMAGES.yaml] [--state STATE.yaml [--observed KIND,...]] [-n NAMESPACE | -A] [-o yaml|json|chart|wide]",
		Short: "plan each pool's disk-system DataVolume",
		Long: `Plans the disk-system DataVolume of each KubernetesNodes pool: a clone of the
catalog's golden for osImage.builtin, the pre-feature HTTP import otherwise.

The pools come from -f files (KubernetesNodes documents; -f repeats, takes a
directory, or - for standard input; bare values with --name), or from the
cluster: kubernetesnodes/NAME (in -n NAMESPACE, else the context's), every
pool of -n NAMESPACE, or of every namespace with -A. The same pools plan the
same, from the cluster or from kubectl get -o yaml of them.

The cluster's state comes from the cluster the kubeconfig names (--kubeconfig,
--context, KUBECONFIG: kubectl's loading rules), reading only what the plan
needs, or from a --state file, which observes the kinds it holds an object
of and those --observed names. Any other kind is unknown, as every kind is
offline, and the guards that need one warn StateUnverified, with its cause;
--strict refuses them.

` + catalogDefaultHelp + `

VMDisks (apps.cozystack.io) plan the same way: vmdisks/NAME, every VMDisk of
-n NAMESPACE with "plan vmdisks", of every namespace with -A, or -f files of
VMDisk documents (or vm-disk HelmReleases). Each plans the DataVolume the
vm-disk chart creates, with the clone guards for a disk cloned from an image
or another disk, against the image catalog: --images (the vm-default-images
values, or that HelmRelease), else the HelmRelease cozy-system/vm-default-images
read from the cluster.

-o chart prints each planned pool's dataVolumeTemplates entry as the chart's
text (after a "# <namespace>/<name>" line when there are several pools); a
refused pool prints nothing there, and its refusals go to standard error.
-o wide prints one line per pool.`,
		Example: a.examples(`worker-image plan --example
worker-image plan -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml
worker-image plan kubernetesnodes/demo-md0 -n tenant-demo --catalog catalog.yaml -o chart
worker-image plan -A --strict -o wide
worker-image plan vmdisks/ubuntu -n tenant-demo
worker-image plan -f vmdisk.yaml --images vm-default-images.yaml --state state.yaml
worker-image plan -f values.yaml --name demo-md0 -n tenant-demo -o chart`),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			a.showProgress = o.progress
			return a.runPlan(o, args)
		},
	}
	fs := cmd.Flags()
	o.fileFlag(fs, "`POOL.yaml`: KubernetesNodes documents (or bare values with --name)")
	o.catalogFlags(fs, "`CATALOG.yaml`: the kubernetes-worker-image package's values", true)
	fs.StringVar(&o.images, "images", "", "`IMAGES.yaml`: the image catalog VMDisks clone from, the vm-default-images package's values or its HelmRelease "+
		"(default: the HelmRelease "+imagesRelease.String()+" read from the cluster)")
	o.stateFlags(fs)
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "plan the KubernetesNodes of every namespace of the cluster")
	o.outputFlag(fs, yamlOut, jsonOut, chartOut, wideOut)
	fs.StringVar(&o.name, "name", "", "`NAME`: read POOL.yaml as the bare values (spec) of the KubernetesNodes of this name")
	o.strictFlag(fs, false)
	o.progressFlag(fs)
	o.exampleFlag(fs)
	return cmd
}

// poolSource reads where a command (plan, diff) takes its pools from:
// the cluster's KubernetesNodes named by args (kubernetesnodes/NAME), by
// -n or by -A, or -f files; a mix, or neither, is a usage error that says
// which flags go together.
func poolSource(command string, o *options, args []string) (names []string, fromCluster bool, err error) {
	if names, err = poolNames(args); err != nil {
		return nil, false, err
	}
	files := len(o.files) > 0 || o.example
	fromCluster = len(names) > 0 || o.allNamespaces || (!files && o.namespace != "")
	switch {
	case fromCluster && files:
		return nil, false, badUsage("%s reads pools from -f files or from the cluster (kubernetesnodes/NAME, -n, -A), not both", command)
	case len(names) > 0 && o.allNamespaces:
		return nil, false, badUsage("a pool's name goes with -n NAMESPACE, not with -A")
	case fromCluster && o.state != "":
		return nil, false, badUsage("the cluster's pools are read against the cluster's state; --state goes with -f")
	case fromCluster && o.name != "":
		return nil, false, badUsage("--name reads bare values from -f")
	case !fromCluster && !files:
		return nil, false, badUsage("name the pools: -f POOL.yaml, or the cluster's kubernetesnodes/NAME, -n NAMESPACE or -A")
	}
	return names, fromCluster, nil
}

func (a *app) runPlan(o *options, args []string) error {
	if names, ok, err := vmDiskArgs(args); ok || err != nil {
		if err != nil {
			return err
		}
		if len(o.files) > 0 || o.example {
			return badUsage("plan reads VMDisks from -f files or from the cluster (vmdisks/NAME, -n, -A), not both")
		}
		return a.runPlanVMDisks(o, names, nil)
	}
	if len(o.files) > 0 && !o.example && o.name == "" && len(args) == 0 {
		inputs, err := a.readInputs(o.files)
		if err != nil {
			return err
		}
		disks, ok, err := a.vmDiskDocuments(inputs)
		if err != nil {
			return err
		}
		if ok {
			return a.runPlanVMDisks(o, nil, disks)
		}
		a.inputs = inputs // readPools reads them from here
	}
	names, fromCluster, err := poolSource("plan", o, args)
	if err != nil {
		return err
	}
	var pools []plan.Pool
	if fromCluster {
		pools, err = a.clusterPools(o, names, o.allNamespaces)
	} else {
		pools, err = a.readPools(o)
	}
	if err != nil {
		return err
	}
	v, err := a.snapshot(o, func() state.Request {
		// The pools' live templates too, for the re-image notice: not
		// the plans' needs, which decide only the disks.
		return catalogNeeds(o, plan.NeedsAll(pools).Merge(plan.TemplateNeeds(pools)))
	}, false)
	if err != nil {
		return err
	}
	cat, runWarnings, err := a.loadCatalog(o, v)
	if err != nil {
		return err
	}
	results := a.planAll(pools, cat, v.snap)
	if !clonesAnyPool(pools) {
		runWarnings = nil // no pool reads the catalog
	}
	var runRefusals guard.Refusals
	for i := range results {
		v.explain(results[i].Warnings)
		if o.strict {
			results[i] = strictPlan(results[i])
		}
	}
	if o.strict {
		runWarnings, runRefusals = strictRefusals(runWarnings)
	}
	rep := planReport{Pools: results, Warnings: runWarnings, Refusals: runRefusals, notices: notices(results, v.snap)}
	if !v.offline && !o.strict {
		rep.unverified = unverifiedPools(pools, results, runWarnings)
	}
	rep.radii = a.blastRadius(results, v)
	rep.unseenTemplates = unseenTemplates(results, v)
	if err := a.writePlan(o, &rep, v); err != nil {
		return err
	}
	if len(runRefusals) > 0 || rep.withheld {
		return errRefused
	}
	for _, r := range results {
		if r.Outcome == plan.Refused {
			return errRefused
		}
	}
	if len(rep.unverified) > 0 {
		return errUnverified
	}
	return nil
}

// unverifiedPools are the planned pools whose plan could not read a kind
// it needed from the cluster (a StateUnverified of their own, or of the
// catalog read back for a pool that clones), by index: those kinds.
func unverifiedPools(pools []plan.Pool, results []plan.Result, runWarnings guard.Warnings) map[int]state.Kind {
	var catalogKinds state.Kind
	for _, w := range runWarnings {
		if k, ok := kindNamed(w.Kind); ok && w.Reason == guard.StateUnverified {
			catalogKinds |= k
		}
	}
	out := map[int]state.Kind{}
	for i, r := range results {
		if r.Outcome != plan.Planned {
			continue
		}
		var kinds state.Kind
		for _, w := range r.Warnings {
			if k, ok := kindNamed(w.Kind); ok && w.Reason == guard.StateUnverified {
				kinds |= k
			}
		}
		if img := pools[i].Spec.OSImage; img != nil && img.Builtin != nil {
			kinds |= catalogKinds
		}
		if kinds != 0 {
			out[i] = kinds
		}
	}
	return out
}

// planAll plans the pools as plan.PlanAll does (on every processor, the
// results in the pools' order); a fleet over progressPools reports its
// progress.
func (a *app) planAll(pools []plan.Pool, cat *catalog.Catalog, snap *state.Snapshot) []plan.Result {
	out := make([]plan.Result, len(pools))
	var done atomic.Int64
	p := a.planProgress(&done, len(pools))
	parallel.For(len(pools), func(i int) {
		out[i], _ = plan.Plan(pools[i], cat, snap)
		done.Add(1)
	})
	p.finish()
	return out
}

// blastRadius sets, on each pool that warns GoldenUnavailable, how many
// pools and templates still point at its golden, reading every consumer
// once (consumerView) only when one does; it returns the human text of
// each, by index.
func (a *app) blastRadius(results []plan.Result, v view) map[int]string {
	wanted := false
	for _, r := range results {
		wanted = wanted || plan.WantsBlastRadius(r)
	}
	if !wanted {
		return nil
	}
	cv := a.consumerView(v)
	plan.AddBlastRadius(results, catalog.NewConsumerIndex(cv.snap, plan.PoolGolden))
	out := map[int]string{}
	for i, r := range results {
		if r.BlastRadius != nil {
			out[i] = cv.radiusText(*r.BlastRadius)
		}
	}
	return out
}

// clonesAnyPool reports whether a pool clones (osImage.builtin): only its
// plan reads the catalog.
func clonesAnyPool(pools []plan.Pool) bool {
	for _, p := range pools {
		if img := p.Spec.OSImage; img != nil && img.Builtin != nil {
			return true
		}
	}
	return false
}
