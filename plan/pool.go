package plan

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
)

// Pool is one KubernetesNodes resource (apps.cozystack.io/v1alpha1).
type Pool struct {
	// Namespace is the tenant namespace.
	Namespace string `json:"namespace"`
	// Name is the KubernetesNodes name, "<cluster>-<pool>".
	Name string `json:"name"`
	// Spec is the kubernetes-nodes chart's values.
	Spec PoolSpec `json:"spec"`
}

// PoolSpec holds the values of the kubernetes-nodes chart that decide the
// worker disk, with the chart's defaults applied: start from
// DefaultPoolSpec, or read values with DecodePool (or encoding/json and
// sigs.k8s.io/yaml, through UnmarshalJSON), which read them as the chart
// does. An empty or null YAML document sets nothing through
// sigs.k8s.io/yaml (it never calls UnmarshalJSON for null), so decode into
// a spec that starts as DefaultPoolSpec, or use DecodePool.
type PoolSpec struct {
	// Cluster is the parent cluster's name (required).
	Cluster string `json:"cluster"`
	// DiskSize is the worker system disk's size; "" falls back to 20Gi. A
	// string off the quantity pattern of the chart's values schema ("20
	// Gi", "twenty") is refused, as the chart's release fails on it.
	DiskSize string `json:"diskSize"`
	// StorageClass is the worker disk's class; "" means the cluster default.
	StorageClass string `json:"storageClass"`
	// OSImage picks the image source; nil is the pre-feature HTTP import
	// from Talos.
	OSImage *OSImage `json:"osImage,omitempty"`
	// Talos is the pool's default flavor.
	Talos Talos `json:"talos"`

	// decoded is what decoding the values found (nil for a spec built in
	// Go), reported by Plan while the fields it is about are not edited.
	decoded *decoding
}

// OSImage picks where the worker disk comes from. Setting both is refused.
type OSImage struct {
	// Builtin clones the catalog's golden of the flavor; an empty
	// SchematicID or Version falls back to Talos's.
	Builtin *catalog.Flavor `json:"builtin,omitempty"`
	// Factory imports over HTTP from an Image Factory.
	Factory *Factory `json:"factory,omitempty"`
}

// Factory is an Image Factory flavor; empty fields fall back to Talos.
type Factory struct {
	catalog.Flavor
	ImageFactoryURL string `json:"imageFactoryURL,omitempty"`
}

// Talos is the chart's talos values.
type Talos struct {
	// Flavor is the pool's default flavor.
	catalog.Flavor
	ImageFactoryURL     string `json:"imageFactoryURL"`
	InstallerRepository string `json:"installerRepository"`
}

// DefaultTalos returns the chart's talos defaults.
func DefaultTalos() Talos {
	return Talos{
		Flavor:              catalog.Flavor{SchematicID: chartdefaults.SchematicID, Version: chartdefaults.Version},
		ImageFactoryURL:     chartdefaults.ImageFactoryURL,
		InstallerRepository: chartdefaults.InstallerRepository,
	}
}

// DefaultPoolSpec returns the chart's defaults for a pool of cluster.
func DefaultPoolSpec(cluster string) PoolSpec {
	return PoolSpec{Cluster: cluster, DiskSize: chartdefaults.DiskSize, StorageClass: chartdefaults.StorageClass, Talos: DefaultTalos()}
}
