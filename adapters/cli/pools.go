package cli

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	example "github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// defaultNamespace is the namespace of a pool that names none, as kubectl
// takes it, when no kubeconfig context names one.
const defaultNamespace = "default"

// poolResource is where the API serves KubernetesNodes.
var poolResource = schema.GroupVersionResource{Group: "apps.cozystack.io", Version: "v1alpha1", Resource: "kubernetesnodes"}

// poolResourceNames are the names `plan TYPE/NAME` takes for it.
var poolResourceNames = []string{"kubernetesnodes", "kubernetesnode", "kubernetesnodes.apps.cozystack.io", "kubernetesnodes.v1alpha1.apps.cozystack.io"}

// listPage bounds one list response, as kubectl does.
const listPage = 500

// namespaceOf is the namespace of pools that name none: -n, else the
// kubeconfig context's when the command reads a cluster, else "default".
func (a *app) namespaceOf(o *options) (string, error) {
	if o.namespace != "" {
		return o.namespace, nil
	}
	if a.conn == nil && a.readsCluster(o) {
		var err error
		if a.conn, err = a.connect(o); err != nil {
			return "", err
		}
	}
	if a.conn != nil {
		return a.conn.namespace, nil
	}
	return defaultNamespace, nil
}

// readPools reads the -f files: KubernetesNodes documents, or, with
// --name, bare values. What a pool's values get wrong is carried on the
// pool and reported by the plan; a file set without any pool is unusable
// input. A document in another namespace than -n is an error, as kubectl's.
func (a *app) readPools(o *options) ([]plan.Pool, error) {
	inputs := []input{{example.PoolsFile, example.Pools}}
	switch {
	case o.example:
	case a.inputs != nil:
		inputs = a.inputs
	default:
		var err error
		if inputs, err = a.readInputs(o.files); err != nil {
			return nil, err
		}
	}
	values, err := a.poolValues(o, inputs)
	if err != nil {
		return nil, err
	}
	pools := make([]plan.Pool, len(values))
	for i, v := range values {
		pools[i] = plan.DecodePool(v.Namespace, v.Name, v.Spec)
		a.noteClass(v.Namespace, v.Name, v.Spec)
	}
	return pools, nil
}

// poolValues reads the pools of inputs as their values, as readPools
// reads them.
func (a *app) poolValues(o *options, inputs []input) ([]whatif.PoolValues, error) {
	ns, err := a.namespaceOf(o)
	if err != nil {
		return nil, err
	}
	if o.name != "" {
		if len(inputs) != 1 {
			return nil, badUsage("--name reads one file of bare values; -f names %d", len(inputs))
		}
		m, err := values(inputs[0].name, inputs[0].data)
		if err != nil {
			return nil, err
		}
		if kind, _ := m["kind"].(string); kind != "" {
			return nil, badUsage("--name reads %s as bare values, but it holds a %s; drop --name to read its documents", inputs[0].name, kind)
		}
		return []whatif.PoolValues{{Namespace: ns, Name: o.name, Spec: m}}, nil
	}
	var pools []whatif.PoolValues
	for _, in := range inputs {
		docs, err := a.documents(in.name, in.data)
		if err != nil {
			if m, verr := values(in.name, in.data); verr == nil && len(inputs) == 1 && m["kind"] == nil && m["apiVersion"] == nil {
				return nil, unusable("%v; if %s holds a pool's bare values (its spec), pass --name NAME", err, in.name)
			}
			return nil, err
		}
		for _, d := range docs {
			pool, err := whatif.PoolValuesFromObject(d.Object.Object)
			if err != nil {
				obj := d.Object
				printf(a.stderr, "note: %s:%d: skipped %s %s %s: not a %s\n", in.name, d.Line, obj.GetAPIVersion(), obj.GetKind(), obj.GetName(), plan.PoolKind)
				continue
			}
			switch {
			case pool.Namespace == "":
				pool.Namespace = ns
			case o.namespace != "" && pool.Namespace != o.namespace:
				return nil, unusable("%s:%d: the namespace of %s %q is %q, which does not match --namespace %q; pass --namespace %s, or none",
					in.name, d.Line, plan.PoolKind, pool.Name, pool.Namespace, o.namespace, pool.Namespace)
			}
			pools = append(pools, pool)
		}
	}
	if len(pools) == 0 {
		names := make([]string, len(inputs))
		for i, in := range inputs {
			names[i] = in.name
		}
		hint := "give KubernetesNodes documents"
		if len(inputs) == 1 {
			hint += ", or bare values with --name NAME"
		}
		return nil, unusable("%s holds no %s; %s", strings.Join(names, ", "), plan.PoolKind, hint)
	}
	return pools, nil
}

// poolNames reads `plan kubernetesnodes/NAME …` and `plan kubernetesnodes
// NAME …`: the names of the pools to read from the cluster.
func poolNames(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	isType := func(s string) bool {
		for _, n := range poolResourceNames {
			if strings.EqualFold(s, n) {
				return true
			}
		}
		return false
	}
	if isType(args[0]) {
		if len(args) == 1 {
			return nil, badUsage("name the %s to plan, as in kubernetesnodes/NAME, or pass -n NAMESPACE (or -A) to plan them all", plan.PoolKind)
		}
		for _, a := range args[1:] {
			if strings.Contains(a, "/") {
				return nil, badUsage("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (%q)", a)
			}
		}
		return args[1:], nil
	}
	var names []string
	for _, a := range args {
		typ, name, ok := strings.Cut(a, "/")
		if !ok || !isType(typ) || name == "" {
			return nil, badUsage("%q is not a %s of the cluster: name it kubernetesnodes/NAME (plan reads files with -f)", a, plan.PoolKind)
		}
		names = append(names, name)
	}
	return names, nil
}

// clusterPools reads KubernetesNodes from the cluster: by name in the
// namespace, every one of the namespace, or of every namespace (all). A
// pool the cluster does not serve, may not be read or does not exist is
// status 1.
func (a *app) clusterPools(o *options, names []string, all bool) ([]plan.Pool, error) {
	objs, err := a.clusterPoolObjects(o, names, all)
	if err != nil {
		return nil, err
	}
	pools := make([]plan.Pool, 0, len(objs))
	for i := range objs {
		pool, err := plan.PoolFromObject(objs[i].Object)
		if err != nil {
			return nil, failed("%s %s/%s: %v", plan.PoolKind, objs[i].GetNamespace(), objs[i].GetName(), err)
		}
		a.noteClass(pool.Namespace, pool.Name, objs[i].Object["spec"])
		pools = append(pools, pool)
	}
	return pools, nil
}

// clusterPoolObjects reads the KubernetesNodes objects clusterPools plans.
func (a *app) clusterPoolObjects(o *options, names []string, all bool) ([]unstructured.Unstructured, error) {
	if a.conn == nil {
		var err error
		if a.conn, err = a.connect(o); err != nil {
			return nil, err
		}
	}
	c := a.conn
	served, why, err := c.served.Serves(poolResource)
	if err != nil {
		return nil, failed("read %s: %v", c.name, err)
	}
	if !served {
		return nil, failed("%s serves no %s (%s): %s", c.name, plan.PoolKind, poolResource.GroupVersion(), why)
	}
	ns := c.namespace
	if o.namespace != "" {
		ns = o.namespace
	}
	res := c.dyn.Resource(poolResource)
	ctx := context.Background()
	var objs []unstructured.Unstructured
	switch {
	case len(names) > 0:
		for _, n := range names {
			obj, err := res.Namespace(ns).Get(ctx, n, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil, failed("%s %q not found in namespace %s", poolResource.GroupResource(), n, ns)
			}
			if err != nil {
				return nil, failed("read %s %s/%s of %s: %v", plan.PoolKind, ns, n, c.name, err)
			}
			objs = append(objs, *obj)
		}
	default:
		if all {
			ns = metav1.NamespaceAll
		}
		opts := metav1.ListOptions{Limit: listPage}
		for {
			l, err := res.Namespace(ns).List(ctx, opts)
			if err != nil {
				where := "in namespace " + ns
				if all {
					where = "in every namespace"
				}
				return nil, failed("list %s %s of %s: %v", poolResource.GroupResource(), where, c.name, err)
			}
			objs = append(objs, l.Items...)
			if opts.Continue = l.GetContinue(); opts.Continue == "" {
				break
			}
		}
		if len(objs) == 0 {
			where := "namespace " + ns
			if all {
				where = "any namespace"
			}
			printf(a.stderr, "note: no %s in %s of %s\n", plan.PoolKind, where, c.name)
		}
	}
	return objs, nil
}

// noteClass records a pool whose values set no storageClass (absent, or
// null, which Helm's default replaces): its class is the chart's default.
func (a *app) noteClass(namespace, name string, values any) {
	spec, isMap := values.(map[string]any)
	if !isMap {
		return // not values the plan reads: it refuses them
	}
	if v, ok := spec["storageClass"]; ok && v != nil {
		return
	}
	if a.classDefaulted == nil {
		a.classDefaulted = map[string]bool{}
	}
	a.classDefaulted[namespace+"/"+name] = true
}

// classFrom names where a planned pool's class came from, in text: an
// explicit class the pool's values did not set is the chart's default.
func (a *app) classFrom(r plan.Result) string {
	if r.StorageClass.From == storage.Explicit && a.classDefaulted[r.Namespace+"/"+r.Name] {
		return "the chart's default"
	}
	return string(r.StorageClass.From)
}
