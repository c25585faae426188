package guard

// Reason is the stable identity of a refusal or a warning. Tests and callers
// compare reasons, never message text.
type Reason string

// Refusal reasons (SPEC section 5).
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
	DuplicateCatalogEntry           Reason = "DuplicateCatalogEntry"
	CatalogEntryImmutable           Reason = "CatalogEntryImmutable"
	InvalidPoolName                 Reason = "InvalidPoolName"
	PoolNameTooLong                 Reason = "PoolNameTooLong"
	MissingIngressPool              Reason = "MissingIngressPool"
	IncompleteResources             Reason = "IncompleteResources"
	// InvalidValue is a value of the wrong type where the chart expects
	// another (a list where a map belongs, a number where a string belongs).
	InvalidValue Reason = "InvalidValue"
)

// Warning reasons (SPEC section 6).
const (
	GoldenPending         Reason = "GoldenPending"
	GoldenImportStalled   Reason = "GoldenImportStalled"
	GoldenUnavailable     Reason = "GoldenUnavailable"
	StateUnverified       Reason = "StateUnverified"
	NodeLocalStorageClass Reason = "NodeLocalStorageClass"
	DroppedField          Reason = "DroppedField"
	EtcdUnavailable       Reason = "EtcdUnavailable"
)

// Severity says whether a reason stops a plan.
type Severity int

const (
	// Unknown is the severity of a reason this package does not define.
	Unknown Severity = iota
	// Refuse stops the plan.
	Refuse
	// Warn lets the plan stand.
	Warn
)

var severities = map[Reason]Severity{
	ConflictingImageSource:          Refuse,
	InvalidSchematicID:              Refuse,
	InvalidVersion:                  Refuse,
	InvalidImageFactoryURL:          Refuse,
	InvalidQuantity:                 Refuse,
	GoldenNotInCatalog:              Refuse,
	GoldenImportFailed:              Refuse,
	StorageClassMismatch:            Refuse,
	DefaultStorageClassUnresolvable: Refuse,
	FrozenStorageClassConflict:      Refuse,
	DiskSmallerThanGolden:           Refuse,
	HostAssistedClone:               Refuse,
	DuplicateCatalogEntry:           Refuse,
	CatalogEntryImmutable:           Refuse,
	InvalidPoolName:                 Refuse,
	PoolNameTooLong:                 Refuse,
	MissingIngressPool:              Refuse,
	IncompleteResources:             Refuse,
	InvalidValue:                    Refuse,
	GoldenPending:                   Warn,
	GoldenImportStalled:             Warn,
	GoldenUnavailable:               Warn,
	StateUnverified:                 Warn,
	NodeLocalStorageClass:           Warn,
	DroppedField:                    Warn,
	EtcdUnavailable:                 Warn,
}

// Severity reports what the reason does to a plan. InvalidQuantity is a
// refusal; on the HTTP path it is reported as a warning (SPEC section 9).
func (r Reason) Severity() Severity { return severities[r] }

// Known reports whether r is one of the reasons this package defines.
func (r Reason) Known() bool { return severities[r] != Unknown }
