package guard_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// The tests of this file pin rules that mutation testing (gremlins, see
// internal/invariants/README.md) found no test noticing when broken.

// TestAggregateReadsOneRefusalPerLine: several refusals read as their
// messages, one per line, in order, with nothing before the first or after
// the last, so that a CLI prints them as a list.
func TestAggregateReadsOneRefusalPerLine(t *testing.T) {
	a := guard.NewRefusal(guard.InvalidVersion, field.NewPath("talos", "version"), "1.2", "not a release")
	b := guard.NewRefusal(guard.InvalidSchematicID, field.NewPath("talos", "schematicID"), "X", "not lowercase")
	c := guard.NewRefusal(guard.InvalidQuantity, field.NewPath("diskSize"), "0", "not positive")
	assert.Equal(t, a.Error()+"\n"+b.Error()+"\n"+c.Error(), guard.Join(a, b, c).Error())
	assert.Equal(t, a.Error(), guard.Join(a).Error(), "neighbour: one refusal reads as itself")
}
