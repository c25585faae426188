package computeplane

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

// checkEtcd warns when the tenant has no etcd module. A ComputePlane without
// one looks healthy while nothing comes up: the wrapped chart renders only a
// status beacon and its HelmReleases report Ready, so saying so up front
// saves an operator the search.
func checkEtcd(values map[string]any, c *findings.Collector) {
	nsPath := field.NewPath("_namespace")
	raw := values["_namespace"]
	if raw == nil {
		c.Warn(guard.StateUnverified, nsPath,
			"absent from the values, so whether the tenant has an etcd module is unknown; Cozystack injects it when it installs the ComputePlane, and without etcd nothing is provisioned")
		return
	}
	ns, ok := chartvalues.Map(raw)
	if !ok {
		chartvalues.RefuseType(c, raw, chartvalues.Object, nsPath)
		return
	}
	etcdPath := nsPath.Child("etcd")
	switch etcd := ns["etcd"].(type) {
	case nil:
	case string:
		if etcd != "" {
			return
		}
	default:
		chartvalues.RefuseType(c, etcd, chartvalues.Text, etcdPath)
		return
	}
	c.Warn(guard.EtcdUnavailable, etcdPath,
		"the tenant has no etcd module (neither its own nor one inherited from a parent tenant): the wrapped chart renders only its awaiting-etcd status beacon, provisions no control plane and no workers, and its HelmReleases still report Ready; check the beacon ConfigMap, and enable etcd in the tenant or a parent tenant")
}
