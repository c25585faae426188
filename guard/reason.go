package guard

// Reason is the stable identity of a refusal or a warning: its value is its
// constant's name, so callers match on it across processes. Tests and
// callers compare reasons, never message text.
//
// A Reason is also an error value, for one purpose only: errors.Is(err, r)
// asks whether err holds a refusal of reason r, anywhere in an aggregate
// and however wrapped. No function of this module returns a bare Reason as
// an error.
type Reason string

// Error returns the reason's name.
func (r Reason) Error() string { return string(r) }

// Reasons a pool or a catalog is refused for. Whether a
// finding stops a plan is carried by the finding (a Refusal or a Warning),
// not by its reason: InvalidQuantity refuses a clone and only warns on the
// HTTP path for a size the pre-feature chart rendered.
const (
	ConflictingImageSource          Reason = "ConflictingImageSource"
	InvalidSchematicID              Reason = "InvalidSchematicID"
	InvalidVersion                  Reason = "InvalidVersion"
	InvalidImageFactoryURL          Reason = "InvalidImageFactoryURL"
	InvalidQuantity                 Reason = "InvalidQuantity"
	GoldenNotInCatalog              Reason = "GoldenNotInCatalog"
	GoldenImportFailed              Reason = "GoldenImportFailed"
	StorageClassMismatch            Reason = "StorageClassMismatch"
	DefaultStorageClassUnresolvable Reason = "DefaultStorageClassUnresolvable"
	FrozenStorageClassConflict      Reason = "FrozenStorageClassConflict"
	DiskSmallerThanGolden           Reason = "DiskSmallerThanGolden"
	HostAssistedClone               Reason = "HostAssistedClone"
	// StorageClassNotFound is a disk's class that is not among the
	// cluster's StorageClasses: CDI never renders its PVC.
	StorageClassNotFound Reason = "StorageClassNotFound"
	// DiskUnrenderable is a disk CDI cannot render a PVC for (no
	// StorageProfile for its class, no claim property set with access
	// modes, no CDIConfig, a size under 1MiB).
	DiskUnrenderable      Reason = "DiskUnrenderable"
	DuplicateCatalogEntry Reason = "DuplicateCatalogEntry"
	CatalogEntryImmutable Reason = "CatalogEntryImmutable"
	InvalidPoolName       Reason = "InvalidPoolName"
	PoolNameTooLong       Reason = "PoolNameTooLong"
	MissingIngressPool    Reason = "MissingIngressPool"
	IncompleteResources   Reason = "IncompleteResources"
	// InvalidValue is a value of a type the chart cannot read where it
	// expects another (a list where a map belongs).
	InvalidValue Reason = "InvalidValue"
	// NotAGolden is a rendered disk-system that clones a volume which is
	// not a golden of the catalog: a PVC in another namespace than
	// cozy-public, one whose name no (schematicID, version) derives
	// ("talos-worker-CE4C-v1.13.6"), a DataSource or a snapshot. A
	// post-renderer cannot tell what such a clone boots, so it passes
	// none of them.
	NotAGolden Reason = "NotAGolden"
)

// Reasons of warnings: the plan stands.
const (
	GoldenPending         Reason = "GoldenPending"
	GoldenImportStalled   Reason = "GoldenImportStalled"
	GoldenUnavailable     Reason = "GoldenUnavailable"
	StateUnverified       Reason = "StateUnverified"
	NodeLocalStorageClass Reason = "NodeLocalStorageClass"
	DroppedField          Reason = "DroppedField"
	EtcdUnavailable       Reason = "EtcdUnavailable"
	// UnknownField is a key the chart does not define: it has no effect,
	// and is most often a misspelling of the key that was meant.
	UnknownField Reason = "UnknownField"
)
