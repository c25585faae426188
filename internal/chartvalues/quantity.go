package chartvalues

import (
	"regexp"

	"github.com/cozystack/kubernetes-worker-image/internal/memo"
)

// QuantityPattern is the pattern the kubernetes-nodes and computeplane
// values schemas hold a quantity string to (diskSize, resources.cpu and
// resources.memory): Kubernetes' quantity grammar, a signed decimal with an
// optional binary (Ki…Ei), decimal (n, u, m, k, M…E) or exponent suffix.
// A string it does not match fails the release before anything renders.
const QuantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

var (
	quantityText = regexp.MustCompile(QuantityPattern)
	isQuantity   = memo.New(quantityText.MatchString)
)

// IsQuantity reports whether s matches QuantityPattern, as the charts'
// values schemas check a quantity string. It says nothing of the value:
// "0", "-1Gi" and "1e1.5" match, and Kubernetes refuses the last. For
// example IsQuantity("20Gi") and IsQuantity("+.5e3") are true;
// IsQuantity(""), IsQuantity("20 Gi") and IsQuantity("20GiB") are false.
func IsQuantity(s string) bool { return isQuantity.Of(s) }
