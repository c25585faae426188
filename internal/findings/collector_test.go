package findings

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// TestStampNamesLate: a collector may be named once its findings are in,
// so that a clean plan builds no message. Stamp names every finding
// recorded without a subject and leaves those that name their own.
func TestStampNamesLate(t *testing.T) {
	var c Collector
	assert.True(t, c.Empty(), "nothing recorded yet")
	c.Warn(guard.GoldenPending, field.NewPath("osImage", "builtin"), "pending")
	assert.False(t, c.Empty(), "a warning alone is something recorded")
	assert.False(t, c.Refused(), "neighbour: a warning is no refusal")
	c.AddWarning(guard.Warning{Reason: guard.StateUnverified, Kind: "CDI", Subject: "catalog"})
	c.Refuse(guard.InvalidVersion, field.NewPath("talos", "version"), "1.2", "not a release")
	c.Add(guard.Refusals{{Reason: guard.DuplicateCatalogEntry, Field: "images[1]", Subject: "catalog"}})
	c.Stamp("pool tenant-a/demo-md0")

	var subjects []string
	for _, w := range c.Warnings() {
		subjects = append(subjects, w.Subject)
	}
	for _, r := range c.Refusals() {
		subjects = append(subjects, r.Subject)
	}
	assert.Equal(t, []string{"pool tenant-a/demo-md0", "catalog", "pool tenant-a/demo-md0", "catalog"}, subjects)
	assert.True(t, c.Refused())
}

// TestAddCopies: a validator's refusals are copied, so that stamping one
// collector never renames a refusal another holds.
func TestAddCopies(t *testing.T) {
	shared := guard.Refusals{NewRefusal(guard.InvalidVersion, field.NewPath("version"), "x", "bad")}
	var a, b Collector
	assert.False(t, a.Add(shared))
	assert.False(t, b.Add(shared))
	a.Stamp("pool a")
	b.Stamp("pool b")
	assert.Equal(t, "pool a", a.Refusals()[0].Subject)
	assert.Equal(t, "pool b", b.Refusals()[0].Subject)
	assert.Equal(t, "", shared[0].Subject)
	assert.True(t, a.Add(nil), "neighbour: nothing to add reports none")
	assert.True(t, a.Add(guard.Refusals{nil}), "a nil entry is no refusal")
}

func TestSubjectGivenUpFront(t *testing.T) {
	c := Collector{Subject: "catalog"}
	c.Warn(guard.UnknownField, field.NewPath("enable"), "x")
	c.AddWarning(guard.Warning{Reason: guard.StateUnverified})
	assert.Equal(t, "catalog", c.Warnings()[0].Subject)
	assert.Equal(t, "catalog", c.Warnings()[1].Subject)
}

// TestMergeKeepsOrder: what another collector recorded comes after what
// this one has, in its order, named by this one's subject when it names
// none; an empty collector merges nothing.
func TestMergeKeepsOrder(t *testing.T) {
	var c, o, empty Collector
	c.Refuse(guard.InvalidVersion, field.NewPath("talos", "version"), "1.2", "not a release")
	o.Refuse(guard.StorageClassMismatch, field.NewPath("storageClass"), "local", "mismatch")
	o.Warn(guard.GoldenPending, field.NewPath("osImage", "builtin"), "pending")
	o.AddWarning(guard.Warning{Reason: guard.StateUnverified, Subject: "catalog"})
	c.Merge(&empty)
	assert.Len(t, c.Refusals(), 1)
	assert.Empty(t, c.Warnings())
	c.Merge(&o)
	c.Stamp("pool tenant-a/demo-md0")
	var reasons []guard.Reason
	for _, r := range c.Refusals() {
		reasons = append(reasons, r.Reason)
	}
	assert.Equal(t, []guard.Reason{guard.InvalidVersion, guard.StorageClassMismatch}, reasons)
	assert.Equal(t, "pool tenant-a/demo-md0", c.Refusals()[1].Subject)
	assert.Equal(t, []string{"pool tenant-a/demo-md0", "catalog"}, []string{c.Warnings()[0].Subject, c.Warnings()[1].Subject})
}
