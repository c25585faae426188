package computeplane

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

// subject names the ComputePlane as a whole in messages.
const subject = "ComputePlane"

// Plan turns ComputePlane values, as Helm holds them, into its pool releases.
// It reports every refusal together, in Result.Refusals and as one error,
// Result.Refusals.Err() (nil when there is none); on any refusal
// Result.Pools is empty. It does no I/O, does not modify values, and is safe
// for concurrent use.
//
// For example, values without nodeGroups plan one pool md0, released as
// kubernetes-nodes-computeplane-cluster-md0 with values {cluster:
// computeplane-cluster, minReplicas: 0, roles: [ingress-nginx]}; a node group
// keyed "Md0" is refused InvalidPoolName at nodeGroups.Md0.
func Plan(values map[string]any) (Result, error) {
	c := &findings.Collector{Subject: subject}
	checkEtcd(values, c)
	pools := planPools(values, c)
	res := Result{Cluster: contract(), Warnings: c.Warnings(), Refusals: c.Refusals()}
	if !c.Refused() {
		res.Pools = pools
	}
	return res, res.Refusals.Err()
}

// planPools plans the supplied node groups, or the default pool when there
// are none. Supplied groups are authoritative: the default is not merged in.
func planPools(values map[string]any, c *findings.Collector) []Pool {
	fld := field.NewPath("nodeGroups")
	raw := values["nodeGroups"]
	if raw == nil {
		return []Pool{defaultPool()}
	}
	groups, ok := chartvalues.Map(raw)
	if !ok {
		chartvalues.RefuseType(c, raw, chartvalues.Object, fld)
		return nil
	}
	var pools []Pool
	canServeIngress := false
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		if groups[name] == nil {
			// Null removes a key in Helm's values: the group is not supplied.
			continue
		}
		pool, ing := planGroup(name, groups[name], fld.Child(name), c)
		pools = append(pools, pool)
		canServeIngress = canServeIngress || ing != noIngress
	}
	c.Subject = subject
	switch {
	case len(pools) == 0:
		return []Pool{defaultPool()}
	case !canServeIngress:
		c.Refuse(guard.MissingIngressPool, fld, nil,
			"no node group has role %s with maxReplicas of 1 or more (an omitted maxReplicas is %d), so nothing can run the cluster's ingress; add %s to a group's roles and let it scale to at least 1",
			ingressRole, defaultMaxReplicas, ingressRole)
	}
	return pools
}

// defaultPool is the pool of a ComputePlane whose tenant supplied no node
// groups. The pool chart supplies the rest, maxReplicas 10 among it.
func defaultPool() Pool {
	return Pool{
		Name:        defaultPoolName,
		ReleaseName: releaseName(defaultPoolName),
		Values: map[string]any{
			"cluster":     clusterRelease,
			"minReplicas": 0,
			"roles":       []any{ingressRole},
		},
	}
}
