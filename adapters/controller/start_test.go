package controller_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
)

// A start tells nothing new of the pools that existed before it: one that
// plans gets no Normal Planned (a rollout or a new leader would otherwise
// write an Event per pool), one refused gets its Warning, and a pool
// created after the start gets its Planned.
func TestStartRecordsWhatIsNew(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleases(t, e)
	e.Namespace(t, catalogRelease.Namespace)
	newCatalogRelease(t, e, map[string]any{"values": map[string]any{"enabled": true}})
	builtin := map[string]any{"builtin": map[string]any{}}
	old := newPool(t, e, "tenant-start", "old-md0", map[string]any{"cluster": "old", "osImage": builtin})
	refused := newPool(t, e, "tenant-start", "bad-md0", map[string]any{"cluster": "bad", "storageClass": "absent", "osImage": builtin})
	// Creation times count whole seconds: the start is a second later.
	time.Sleep(time.Until(old.GetCreationTimestamp().Add(time.Second)) + 100*time.Millisecond)

	reg := run(t, e.Config)
	eventually(t, "the pools of before the start, planned", func(c *assert.CollectT) {
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "planned", "reason", "Planned"))
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "StorageClassNotFound"))
		assert.Equal(c, 1, events(c, e, refused, "StorageClassNotFound"), "a refusal is told, whenever the pool was made")
	})
	later := newPool(t, e, "tenant-start", "new-md0", map[string]any{"cluster": "new", "osImage": builtin})
	eventually(t, "a pool made after the start", func(c *assert.CollectT) {
		assert.Equal(c, 1, events(c, e, later, "Planned"))
	})
	// The Events are written in the order they were recorded: the old
	// pool's would have been written before the new one's.
	assert.Zero(t, events(t, e, old, "Planned"), "a pool planned before the start is not told again")
}
