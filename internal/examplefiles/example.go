// Package examplefiles embeds the walkthrough's example files, which the
// CLI's --example runs from any checkout without paths: a tenant's
// KubernetesNodes pools (one cloning the catalog's golden, one importing
// over HTTP as before the catalog), a pool refused for a
// StorageClassMismatch, the catalog's values, a cluster state as
// `kubectl get -o yaml` prints it, and a ComputePlane's values. They are
// the CLI's own; examples/cli holds the same files on disk for the README's
// commands, and its test keeps the two byte for byte the same.
package examplefiles

import _ "embed"

// The files' names, relative to the repository's root, as the CLI names
// them in its messages.
const (
	PoolsFile        = "examples/cli/pools.yaml"
	RefusedFile      = "examples/cli/refused.yaml"
	CatalogFile      = "examples/cli/catalog.yaml"
	StateFile        = "examples/cli/state.yaml"
	ComputePlaneFile = "examples/cli/computeplane.yaml"
)

var (
	// Pools are two KubernetesNodes of cluster "demo" in tenant-demo that
	// plan: demo-md0 clones the golden, demo-md1 imports over HTTP.
	//go:embed pools.yaml
	Pools []byte
	// Refused is a KubernetesNodes of cluster "demo" that the planner
	// refuses: demo-gpu clones the golden onto another class than the
	// golden's (StorageClassMismatch).
	//go:embed refused.yaml
	Refused []byte
	// Catalog is the catalog's values: enabled, holding the default flavor.
	//go:embed catalog.yaml
	Catalog []byte
	// State is the cluster: a List of StorageClasses, their CSIDriver and
	// VolumeSnapshotClasses, CDI's StorageProfiles, CDI resource and
	// config, goldens with their volumes, and worker disks.
	//go:embed state.yaml
	State []byte
	// ComputePlane is a ComputePlane's values: the tenant's nodeGroups and
	// the _namespace Cozystack injects.
	//go:embed computeplane.yaml
	ComputePlane []byte
)
