// Package size parses the sizes the values hold: a pool's diskSize, a
// catalog's storage.
package size

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// Parse parses a positive quantity, refusing anything else InvalidQuantity
// at fld. For example "6Gi" and "6144Mi" parse to equal quantities; "",
// "0", "-1Gi" and "6 GB" are refused.
func Parse(s string, fld *field.Path) (resource.Quantity, guard.Refusals) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, guard.Refusals{guard.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a Kubernetes quantity; use a size such as 20Gi", s)}
	}
	if q.Sign() <= 0 {
		return resource.Quantity{}, guard.Refusals{guard.NewRefusal(guard.InvalidQuantity, fld, s,
			"%q is not a positive size; use a size such as 20Gi", s)}
	}
	return q, nil
}
