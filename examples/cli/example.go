// Package cli holds the worker-image walkthrough's example files, embedded so
// that `worker-image plan --example` runs them from any checkout without
// paths: a tenant's KubernetesNodes pools (one cloning the catalog's golden,
// one importing over HTTP as before the catalog, one refused for a
// StorageClassMismatch), the catalog's values, and a cluster state as
// `kubectl get -o yaml` prints it.
//
// The same files are plain YAML beside this one, for the commands of the
// README's walkthrough.
package cli

import _ "embed"

// The files' names, relative to the repository's root, as the CLI names
// them in its messages.
const (
	PoolsFile   = "examples/cli/pools.yaml"
	CatalogFile = "examples/cli/catalog.yaml"
	StateFile   = "examples/cli/state.yaml"
)

var (
	// Pools are three KubernetesNodes of cluster "demo" in tenant-demo.
	//go:embed pools.yaml
	Pools []byte
	// Catalog is the catalog's values: enabled, holding the default flavor.
	//go:embed catalog.yaml
	Catalog []byte
	// State is the cluster: a List of StorageClasses, a CSIDriver,
	// StorageProfiles, the CDI resource, goldens and worker disks.
	//go:embed state.yaml
	State []byte
)
