package computeplane

import (
	"encoding/json"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// Result is a ComputePlane's plan. Its JSON is the computeplane shape of
// `worker-image computeplane -o json`.
type Result struct {
	// Pools are the pool releases sorted by name; empty when refused.
	Pools []Pool
	// Cluster is the derived contract, the same for every ComputePlane.
	Cluster Cluster
	// Warnings let the plan stand: DroppedField, EtcdUnavailable,
	// StateUnverified.
	Warnings guard.Warnings
	// Refusals are every refusal, nil when planned; Refusals.Err() is the
	// error Plan returned.
	Refusals guard.Refusals
}

// Pool is one kubernetes-nodes release of a ComputePlane.
type Pool struct {
	// Name is the node group's key.
	Name string `json:"name"`
	// ReleaseName is kubernetes-nodes-computeplane-cluster-<name>.
	ReleaseName string `json:"releaseName"`
	// Values are the release's values: cluster, and the allowlisted fields
	// the tenant set, as the tenant wrote them.
	Values map[string]any `json:"values"`
}

// Cluster is the ComputePlane's cluster release and where its admin
// kubeconfig is found.
type Cluster struct {
	Release         string       `json:"release"`
	AdminKubeconfig SecretKeyRef `json:"adminKubeconfig"`
}

// SecretKeyRef names a key of a Secret in the ComputePlane's namespace.
type SecretKeyRef struct {
	Secret string `json:"secret"`
	Key    string `json:"key"`
}

// contract is the derived contract as a value: clusterRelease,
// adminKubeconfigSecret and adminKubeconfigKey.
func contract() Cluster {
	return Cluster{
		Release:         clusterRelease,
		AdminKubeconfig: SecretKeyRef{Secret: adminKubeconfigSecret, Key: adminKubeconfigKey},
	}
}

// MarshalJSON writes the shape of `worker-image computeplane -o json`:
// {"pools","cluster","warnings","refusals"}.
func (r Result) MarshalJSON() ([]byte, error) {
	out := struct {
		Pools    []Pool         `json:"pools"`
		Cluster  Cluster        `json:"cluster"`
		Warnings guard.Warnings `json:"warnings"`
		Refusals guard.Refusals `json:"refusals"`
	}{Pools: make([]Pool, 0, len(r.Pools)), Cluster: r.Cluster, Warnings: r.Warnings, Refusals: r.Refusals}
	for _, p := range r.Pools {
		if p.Values == nil {
			p.Values = map[string]any{}
		}
		out.Pools = append(out.Pools, p)
	}
	return json.Marshal(out)
}
