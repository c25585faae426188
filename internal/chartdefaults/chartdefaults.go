// Package chartdefaults holds the charts' defaults once: the
// kubernetes-nodes chart's values.yaml and the kubernetes-worker-image
// package's. The default flavor, factory and class are the same in both,
// so that the catalog's default golden is the one a pool clones unless it
// names another. Importers read them as values: plan.DefaultPoolSpec,
// plan.DefaultTalos and catalog.Default.
package chartdefaults

const (
	// ImageFactoryURL is talos.imageFactoryURL and the catalog's
	// imageFactoryURL.
	ImageFactoryURL = "https://factory.talos.dev"
	// StorageClass is the pool's storageClass and the catalog's.
	StorageClass = "replicated"
	// SchematicID and Version are the default flavor: talos.schematicID
	// and talos.version, and the catalog's one default image.
	SchematicID = "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515"
	Version     = "v1.13.6"
	// DiskSize is the pool's diskSize, also what "" falls back to.
	DiskSize = "20Gi"
	// InstallerRepository is talos.installerRepository.
	InstallerRepository = "factory.talos.dev/installer"
	// Storage is the catalog's storage: each golden's size.
	Storage = "6Gi"
)
