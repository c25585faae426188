package cli

import (
	"flag"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	example "github.com/cozystack/kubernetes-worker-image/examples/cli"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// defaultNamespace is the namespace of a pool that names none, as kubectl
// takes it.
const defaultNamespace = "default"

// progressAbove is how many pools make planning print its progress.
const progressAbove = 500

// progressEvery is how many pools each progress line stands for.
const progressEvery = 1000

var planCommand = &command{
	name:     "plan",
	summary:  "plan each pool's disk-system DataVolume",
	synopsis: "plan -f POOL.yaml [--catalog CATALOG.yaml] [--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH] [-o yaml|json|chart]",
	about: `Plans the disk-system DataVolume of each KubernetesNodes pool in POOL.yaml
(one or more documents, or bare values with --name): a clone of the catalog's
golden for osImage.builtin, the pre-feature HTTP import otherwise. Without
--catalog the catalog is read back from the goldens in the cluster's state.
A --state file observes the kinds it holds an object of, and those
--observed names; any other kind is unknown, as every kind is without
--state or --kubeconfig, and the guards that need one warn StateUnverified.

-o chart prints each planned pool's dataVolumeTemplates entry as the chart's
text (after a "# <namespace>/<name>" line when there are several pools); a
refused pool prints nothing there, and its refusals go to standard error.`,
	example: `worker-image plan --example
worker-image plan -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml
worker-image plan -f values.yaml --name demo-md0 --namespace tenant-demo -o chart`,
	flags: func(fs *flag.FlagSet, o *options) {
		o.fileFlag(fs, "POOL.yaml: KubernetesNodes documents (or bare values with --name)")
		o.catalogFlag(fs, "CATALOG.yaml: the kubernetes-worker-image package's values (default: read back from the goldens in the cluster's state)")
		o.stateFlags(fs)
		o.outputFlag(fs, yamlOut, jsonOut, chartOut)
		fs.StringVar(&o.name, "name", "", "read POOL.yaml as the bare values (spec) of the KubernetesNodes of this name")
		fs.StringVar(&o.namespace, "namespace", "", `namespace of bare values, and of documents that name none (default "default")`)
		o.exampleFlag(fs)
	},
	run: runPlan,
}

func runPlan(a *app, o *options, args []string) error {
	if len(args) > 0 {
		return badUsage("unexpected argument %q", args[0])
	}
	if o.file == "" && !o.example {
		return badUsage("-f POOL.yaml is required")
	}
	pools, err := a.readPools(o)
	if err != nil {
		return err
	}
	snap, err := a.snapshot(o, func() state.Request {
		need := plan.NeedsAll(pools)
		if o.catalog == "" {
			// The catalog is read back from every golden.
			need = need.Merge(catalog.RenderNeeds())
		}
		return need
	}, false)
	if err != nil {
		return err
	}
	cat, err := a.loadCatalog(o, snap)
	if err != nil {
		return err
	}
	results := a.planAll(pools, cat, snap)
	if err := a.writePlan(o, results); err != nil {
		return err
	}
	for _, r := range results {
		if r.Outcome == plan.Refused {
			return errRefused
		}
	}
	return nil
}

// planAll plans the pools in order. It prints its progress on standard
// error when there are many pools.
func (a *app) planAll(pools []plan.Pool, cat *catalog.Catalog, snap *state.Snapshot) []plan.Result {
	out := make([]plan.Result, len(pools))
	for i := range pools {
		out[i], _ = plan.Plan(pools[i], cat, snap)
		if n := i + 1; len(pools) > progressAbove && (n%progressEvery == 0 || n == len(pools)) {
			fmt.Fprintf(a.stderr, "planned %d/%d pools\n", n, len(pools))
		}
	}
	return out
}

// readPools reads the POOL file: KubernetesNodes documents, or, with --name,
// bare values. What a pool's values get wrong is carried on the pool and
// reported by the plan; a file without any pool is unusable input.
func (a *app) readPools(o *options) ([]plan.Pool, error) {
	data, name := example.Pools, example.PoolsFile
	if !o.example {
		var err error
		if data, name, err = a.readFile(o.file); err != nil {
			return nil, err
		}
	}
	ns := o.namespace
	if ns == "" {
		ns = defaultNamespace
	}
	if o.name != "" {
		m, err := values(name, data)
		if err != nil {
			return nil, err
		}
		if kind, _ := m["kind"].(string); kind != "" {
			return nil, badUsage("--name reads %s as bare values, but it holds a %s; drop --name to read its documents", name, kind)
		}
		return []plan.Pool{plan.DecodePool(ns, o.name, m)}, nil
	}
	docs, err := documents(name, data)
	if err != nil {
		return nil, err
	}
	var pools []plan.Pool
	for _, d := range docs {
		pool, err := plan.PoolFromObject(d.Object.Object)
		if err != nil {
			obj := d.Object
			fmt.Fprintf(a.stderr, "note: %s:%d: skipped %s %s %s: not a %s\n", name, d.Line, obj.GetAPIVersion(), obj.GetKind(), obj.GetName(), plan.PoolKind)
			continue
		}
		if pool.Namespace == "" {
			pool.Namespace = ns
		}
		pools = append(pools, pool)
	}
	if len(pools) == 0 {
		return nil, unusable("%s holds no %s; give KubernetesNodes documents, or bare values with --name", name, plan.PoolKind)
	}
	return pools, nil
}
