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

// TestCollectorNamesItsSubjectLate: a collector may be named once its
// findings are in (Stamp), so that a clean plan builds no message. Stamp
// names every refusal and warning recorded without a subject and leaves
// those that name their own; AddWarning gives a hand-built warning the
// collector's subject only when it has none; Empty reports that nothing,
// refusal or warning, was recorded.
func TestCollectorNamesItsSubjectLate(t *testing.T) {
	var c guard.Collector
	assert.True(t, c.Empty(), "nothing recorded yet")
	c.Warn(guard.GoldenPending, field.NewPath("osImage", "builtin"), "pending")
	assert.False(t, c.Empty(), "a warning alone is something recorded")
	c.AddWarning(guard.Warning{Reason: guard.StateUnverified, Value: "CDI", Subject: "catalog"})
	c.Refuse(guard.InvalidVersion, field.NewPath("talos", "version"), "1.2", "not a release")
	c.Check(&guard.Refusal{Reason: guard.DuplicateCatalogEntry, Field: "images[1]", Subject: "catalog"})
	c.Stamp("pool tenant-a/demo-md0")

	var subjects []string
	for _, w := range c.Warnings() {
		subjects = append(subjects, w.Subject)
	}
	for _, r := range guard.Refusals(c.Err()) {
		subjects = append(subjects, r.Subject)
	}
	assert.Equal(t, []string{"pool tenant-a/demo-md0", "catalog", "pool tenant-a/demo-md0", "catalog"}, subjects)

	var d guard.Collector
	d.Subject = "pool tenant-a/demo-md1"
	d.AddWarning(guard.Warning{Reason: guard.StateUnverified, Value: "CDI"})
	assert.Equal(t, "pool tenant-a/demo-md1", d.Warnings()[0].Subject, "neighbour: a warning without a subject takes the collector's")

	var e guard.Collector
	e.Refuse(guard.InvalidVersion, field.NewPath("talos", "version"), "1.2", "not a release")
	assert.False(t, e.Empty(), "a refusal alone is something recorded")
}
