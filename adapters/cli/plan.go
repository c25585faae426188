package cli

import (
	"errors"
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	example "github.com/cozystack/kubernetes-worker-image/examples/cli"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// PoolKind is the kind of a worker pool: a KubernetesNodes
// (apps.cozystack.io/v1alpha1).
const PoolKind = "KubernetesNodes"

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
	synopsis: "plan -f POOL.yaml [--catalog CATALOG.yaml] [--state STATE.yaml | --kubeconfig PATH] [-o yaml|json|chart]",
	about: `Plans the disk-system DataVolume of each KubernetesNodes pool in POOL.yaml
(one or more documents, or bare values with --name): a clone of the catalog's
golden for osImage.builtin, the pre-feature HTTP import otherwise. Without
--catalog the catalog is read back from the goldens in the cluster's state;
without --state or --kubeconfig every kind of the cluster is unknown and the
guards that need one warn StateUnverified.

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
	pools, refused, err := a.readPools(o)
	if err != nil {
		return err
	}
	snap, err := a.snapshot(o, func() state.Request {
		need := plan.NeedsAll(pools)
		if o.catalog == "" {
			// The catalog is read back from every golden.
			need = need.Merge(goldensNeed())
		}
		return need
	})
	if err != nil {
		return err
	}
	cat, err := a.loadCatalog(o, snap)
	var cr *catalogRefused
	if errors.As(err, &cr) {
		cat = servesNothing
	} else if err != nil {
		return err
	}
	results := a.planAll(pools, refused, cat, snap)
	if cr != nil {
		refuseClones(pools, results, cr.err)
	}
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

// refuseClones gives every pool that clones a golden the refusals of catalog
// values that do not decode: no golden is served by them. The HTTP pools
// stand: they never read the catalog.
func refuseClones(pools []plan.Pool, results []plan.Result, catalogErr error) {
	for i, p := range pools {
		img := p.Spec.OSImage
		if img == nil || img.Builtin == nil {
			continue
		}
		var rs []*guard.Refusal
		for _, r := range guard.Refusals(results[i].Err) {
			if r.Reason != guard.GoldenNotInCatalog { // the values, not the flavor, are at fault
				rs = append(rs, r)
			}
		}
		for _, r := range guard.Refusals(catalogErr) {
			cp := *r
			cp.Subject = "pool " + p.Namespace + "/" + p.Name
			cp.Detail = "catalog values: " + cp.Detail
			rs = append(rs, &cp)
		}
		results[i] = plan.Result{Namespace: p.Namespace, Name: p.Name, Outcome: plan.Refused,
			Warnings: results[i].Warnings, Err: guard.Join(rs...)}
	}
}

// planAll plans the pools in order; refused holds, by index, the pools whose
// values were refused before planning. It prints its progress on standard
// error when there are many pools.
func (a *app) planAll(pools []plan.Pool, refused map[int]plan.Result, cat *catalog.Catalog, snap *state.Snapshot) []plan.Result {
	out := make([]plan.Result, len(pools))
	for i := range pools {
		if r, ok := refused[i]; ok {
			out[i] = r
		} else {
			out[i], _ = plan.Plan(pools[i], cat, snap)
		}
		if n := i + 1; len(pools) > progressAbove && (n%progressEvery == 0 || n == len(pools)) {
			fmt.Fprintf(a.stderr, "planned %d/%d pools\n", n, len(pools))
		}
	}
	return out
}

// readPools reads the POOL file: KubernetesNodes documents, or, with --name,
// bare values. A pool whose values are of the wrong type is refused before
// planning (refused, by index); a file without any pool is unusable input.
func (a *app) readPools(o *options) ([]plan.Pool, map[int]plan.Result, error) {
	data, name := example.Pools, example.PoolsFile
	if !o.example {
		var err error
		if data, name, err = a.readFile(o.file); err != nil {
			return nil, nil, err
		}
	}
	ns := o.namespace
	if ns == "" {
		ns = defaultNamespace
	}
	refused := map[int]plan.Result{}
	var pools []plan.Pool
	add := func(namespace, poolName string, spec any) {
		m, ok := spec.(map[string]any)
		if spec == nil {
			m, ok = map[string]any{}, true
		}
		var pool plan.Pool
		var err error
		if ok {
			pool, err = helm.Pool(namespace, poolName, m)
		} else {
			pool = plan.Pool{Namespace: namespace, Name: poolName}
			err = guard.NewRefusal(guard.InvalidValue, field.NewPath("spec"), nil, "spec is not a map of values; write the pool's values under spec")
			err.(*guard.Refusal).Subject = "pool " + namespace + "/" + poolName
		}
		if err != nil {
			refused[len(pools)] = plan.Result{Namespace: namespace, Name: poolName, Outcome: plan.Refused, Err: err}
		}
		pools = append(pools, pool)
	}
	if o.name != "" {
		m, err := values(name, data)
		if err != nil {
			return nil, nil, err
		}
		if kind, _ := m["kind"].(string); kind != "" {
			return nil, nil, badUsage("--name reads %s as bare values, but it holds a %s; drop --name to read its documents", name, kind)
		}
		add(ns, o.name, m)
		return pools, refused, nil
	}
	docs, err := documents(name, data)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range docs {
		obj := d.Object
		if obj.GetKind() != PoolKind {
			fmt.Fprintf(a.stderr, "note: %s:%d: skipped %s %s %s: not a %s\n", name, d.Line, obj.GetAPIVersion(), obj.GetKind(), obj.GetName(), PoolKind)
			continue
		}
		poolNS := obj.GetNamespace()
		if poolNS == "" {
			poolNS = ns
		}
		add(poolNS, obj.GetName(), obj.Object["spec"])
	}
	if len(pools) == 0 {
		return nil, nil, unusable("%s holds no %s; give KubernetesNodes documents, or bare values with --name", name, PoolKind)
	}
	return pools, refused, nil
}
