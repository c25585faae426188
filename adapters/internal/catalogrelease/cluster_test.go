package catalogrelease

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/cozystack/kubernetes-worker-image/catalog"
)

// The Compiler reads the release and what its valuesFrom names, compiles
// once per state of them, and compiles again when a ConfigMap it reads
// changes though the release does not; a release that does not exist is
// the catalog disabled.
func TestCompiler(t *testing.T) {
	ctx := context.Background()
	images := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "cozy-system", Name: "images"},
		Data: map[string]string{"values.yaml": "images: []\n"}}
	hr := &unstructured.Unstructured{Object: release(t, head+"spec:\n  valuesFrom:\n  - {kind: Secret, name: cozystack-values}\n  - {kind: ConfigMap, name: images}\n  values: {enabled: true}\n")}
	hr.SetGroupVersionKind(GVK)
	c := fake.NewClientBuilder().WithObjects(images, hr).Build()
	var cc Compiler

	cat, note, err := cc.Catalog(ctx, c, Default, ReaderSource(c))
	require.NoError(t, err)
	assert.Empty(t, note)
	assert.True(t, cat.Enabled())
	assert.Zero(t, countEntries(cat), "the ConfigMap's images: [] is the catalog's")
	again, _, err := cc.Catalog(ctx, c, Default, ReaderSource(c))
	require.NoError(t, err)
	assert.Same(t, cat, again, "the same state compiles once")

	images.Data["values.yaml"] = "images:\n- {schematicID: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515, version: v1.13.6}\n"
	require.NoError(t, c.Update(ctx, images))
	changed, _, err := cc.Catalog(ctx, c, Default, ReaderSource(c))
	require.NoError(t, err)
	assert.NotSame(t, cat, changed, "the ConfigMap changed, the release did not")
	assert.Equal(t, 1, countEntries(changed))

	require.NoError(t, c.Delete(ctx, hr))
	gone, note, err := cc.Catalog(ctx, c, Default, ReaderSource(c))
	require.NoError(t, err)
	assert.Same(t, Disabled, gone)
	assert.Contains(t, note, "does not exist")
}

func countEntries(cat *catalog.Catalog) int {
	n := 0
	for range cat.Entries() {
		n++
	}
	return n
}
