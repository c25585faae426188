package plantest

import (
	"strings"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// Whether a finding stops a plan is carried by its type (a guard.Refusal or
// a guard.Warning), not by its reason; these say which reasons each type
// may carry, so that a property can check that no refusal is made with a
// warning's reason, and no reason is made up.
var (
	refusalReasons = map[guard.Reason]bool{
		guard.ConflictingImageSource: true, guard.InvalidSchematicID: true, guard.InvalidVersion: true,
		guard.InvalidImageFactoryURL: true, guard.InvalidQuantity: true, guard.GoldenNotInCatalog: true,
		guard.GoldenImportFailed: true, guard.StorageClassMismatch: true, guard.DefaultStorageClassUnresolvable: true,
		guard.FrozenStorageClassConflict: true, guard.DiskSmallerThanGolden: true, guard.HostAssistedClone: true,
		guard.DuplicateCatalogEntry: true, guard.CatalogEntryImmutable: true, guard.InvalidPoolName: true,
		guard.PoolNameTooLong: true, guard.MissingIngressPool: true, guard.IncompleteResources: true,
		guard.InvalidValue: true, guard.StorageClassNotFound: true, guard.DiskUnrenderable: true, guard.NotAGolden: true,
	}
	warningReasons = map[guard.Reason]bool{
		guard.GoldenPending: true, guard.GoldenImportStalled: true, guard.GoldenUnavailable: true,
		guard.StateUnverified: true, guard.NodeLocalStorageClass: true, guard.DroppedField: true,
		guard.EtcdUnavailable: true, guard.UnknownField: true,
	}
)

// IsRefusalReason reports whether r is a reason a plan or a catalog can be
// refused for (StorageClassNotFound and DiskUnrenderable among them), or
// InvalidValue (a value of a type the chart cannot read).
func IsRefusalReason(r guard.Reason) bool { return refusalReasons[r] }

// IsWarningReason reports whether r is a reason of a warning, or
// UnknownField. InvalidQuantity, StorageClassNotFound and DiskUnrenderable,
// which the HTTP path reports as warnings, are
// refusals' reasons: a property that allows them says so.
func IsWarningReason(r guard.Reason) bool { return warningReasons[r] }

// WarnsOnHTTPPath reports whether the HTTP path reports a refusal's reason r at
// field as a warning, as it renders what the pre-feature chart rendered and
// gains no refusal that chart did not have: InvalidQuantity,
// StorageClassNotFound and DiskUnrenderable at any field, and a malformed
// talos.* identifier at that field.
func WarnsOnHTTPPath(r guard.Reason, field string) bool {
	switch r {
	case guard.InvalidQuantity, guard.StorageClassNotFound, guard.DiskUnrenderable:
		return true
	case guard.InvalidSchematicID, guard.InvalidVersion, guard.InvalidImageFactoryURL:
		return strings.HasPrefix(field, "talos.")
	}
	return false
}
