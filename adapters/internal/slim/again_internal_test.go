package slim

import (
	"maps"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
)

// A map the table gave is kept as it is when its object is transformed
// again; an equal map the table did not give is exchanged for the one it
// holds.
func TestTableKnowsWhatItGave(t *testing.T) {
	d := fleet.ServedDisks(1, 1)
	twin := d.PVCs[0].DeepCopy()
	for _, o := range []any{&d.PVCs[0], twin} {
		_, err := Transform(o)
		require.NoError(t, err)
	}
	given := d.PVCs[0].Annotations
	require.NotEmpty(t, given, "a worker disk keeps its pool's annotations")
	require.Equal(t, reflect.ValueOf(given).UnsafePointer(), reflect.ValueOf(twin.Annotations).UnsafePointer(), "equal annotations are shared")

	_, err := Transform(&d.PVCs[0])
	require.NoError(t, err)
	assert.Equal(t, reflect.ValueOf(given).UnsafePointer(), reflect.ValueOf(d.PVCs[0].Annotations).UnsafePointer(), "again: the same map")

	equal := maps.Clone(given)
	assert.Equal(t, reflect.ValueOf(given).UnsafePointer(), reflect.ValueOf(strs.intern(equal)).UnsafePointer(), "an equal map: the table's")
	equal["another"] = "value"
	assert.NotEqual(t, reflect.ValueOf(given).UnsafePointer(), reflect.ValueOf(strs.intern(equal)).UnsafePointer(), "a map of other entries: not the table's")
}

// BenchmarkTransformAgain transforms again objects an informer's
// reflector transformed, as its queue does.
func BenchmarkTransformAgain(b *testing.B) {
	d := fleet.ServedDisks(1000, 50)
	for i := range d.PVCs {
		if _, err := Transform(&d.PVCs[i]); err != nil {
			b.Fatal(err)
		}
		if _, err := Transform(&d.DataVolumes[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range d.PVCs {
			_, _ = Transform(&d.PVCs[i])
			_, _ = Transform(&d.DataVolumes[i])
		}
	}
}
