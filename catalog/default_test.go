package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// The pool chart's defaults and the catalog's are edited in different
// places; a one-sided bump would leave every fresh install that uses
// osImage.builtin without a golden to clone. This test keeps them in step.
func TestDefaultCatalogServesDefaultPool(t *testing.T) {
	v := catalog.Default()
	require.Len(t, v.Images, 1, "the shipped catalog holds exactly the pool's default flavor")
	img := v.Images[0]
	assert.Equal(t, chartdefaults.SchematicID, img.SchematicID, "catalog default schematic ID")
	assert.Equal(t, chartdefaults.Version, img.Version, "catalog default Talos version")
	assert.Equal(t, chartdefaults.ImageFactoryURL, v.ImageFactoryURL, "catalog default factory")
	assert.Equal(t, chartdefaults.StorageClass, v.StorageClass, "the golden sits on the pool's default class, or every default pool is refused StorageClassMismatch")
	assert.False(t, v.Enabled, "the catalog is opt-in")

	talos := plan.DefaultTalos()
	c := catalog.Compile(v)
	require.NoError(t, c.Refusals().Err())
	e, ok := c.Lookup(catalog.Flavor{SchematicID: talos.SchematicID, Version: talos.Version})
	require.True(t, ok, "the pool's default flavor has an entry")
	assert.Equal(t, plan.DefaultPoolSpec("demo").StorageClass, e.StorageClass)
}
