package controller_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/chartrender"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// chartRules are the rules of the chart's kind/name, rendered with the
// valuesFrom objects the chart's values grant.
func chartRules(t *testing.T, kind, name string) []rbacv1.PolicyRule {
	t.Helper()
	objs, err := chartrender.Render(chart.Files(), chartrender.Release{Name: "worker-image", Namespace: "cozy-worker-image", Service: "Helm"}, map[string]any{
		"catalogRelease": map[string]any{"valuesFrom": map[string]any{"secrets": []any{"catalog-values"}}},
		"imageCatalog":   map[string]any{"valuesFrom": map[string]any{"secrets": []any{"vm-images-values"}}},
	})
	require.NoError(t, err)
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			raw, err := json.Marshal(o.Object["rules"])
			require.NoError(t, err)
			var rules []rbacv1.PolicyRule
			require.NoError(t, json.Unmarshal(raw, &rules))
			return rules
		}
	}
	t.Fatalf("the chart has no %s %s", kind, name)
	return nil
}

// bind grants user the rules in namespace, as the chart's Role name.
func bind(t *testing.T, e *apiserver.Env, namespace, name, user string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	for _, o := range []client.Object{role, binding} {
		require.NoError(t, e.Client.Create(ctx, o))
		t.Cleanup(func() { _ = e.Client.Delete(ctx, o) })
	}
}

// notes are the notes of the events of reason on obj.
func notes(t require.TestingT, e *apiserver.Env, obj *unstructured.Unstructured, reason string) []string {
	var list eventsv1.EventList
	require.NoError(t, e.Client.List(context.Background(), &list, client.InNamespace(obj.GetNamespace())))
	var out []string
	for _, ev := range list.Items {
		if ev.Regarding.Name == obj.GetName() && ev.Reason == reason {
			out = append(out, ev.Note)
		}
	}
	return out
}

// A controller under the chart's RBAC, without the valuesFrom objects
// granted, cannot read the catalogs' values: each pool and each VM disk
// that clones an image is unverified, a Warning Event Unverified says
// once which objects and which chart value grants them, and the metrics
// count it; a VM disk that clones no image is planned, told nothing of
// it. Once the chart's Roles grant them, the same pools are planned, and
// a pool made then is never told Unverified.
func TestUngrantedValuesFrom(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleases(t, e)
	ctx := context.Background()
	const system, ns, user = "cozy-system", "tenant-ungranted", "worker-image-controller-ungranted"
	e.Namespace(t, system)
	cfg := e.User(t, user, chartRules(t, "ClusterRole", "worker-image-controller")...)

	newSecret(t, e, system, "catalog-values", "enabled: true\n")
	newSecret(t, e, system, "vm-images-values", "images: []\n")
	newRelease(t, e, catalogRelease.Namespace, catalogRelease.Name, map[string]any{"valuesFrom": []any{
		map[string]any{"kind": "Secret", "name": "cozystack-values"},
		map[string]any{"kind": "Secret", "name": "catalog-values"},
	}}, nil)
	newRelease(t, e, system, "vm-default-images", map[string]any{"valuesFrom": []any{
		map[string]any{"kind": "Secret", "name": "vm-images-values"},
	}}, nil)
	pool := newPool(t, e, ns, "demo-md0", map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}})
	fromImage := newVMDisk(t, e, ns, "ubuntu", map[string]any{
		"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi", "storageClass": fixtures.ReplicatedClass})
	fromURL := newVMDisk(t, e, ns, "imported", map[string]any{
		"source": map[string]any{"http": map[string]any{"url": "https://cloud-images.example.com/other.img"}}})
	reg := run(t, cfg)

	eventually(t, "the values forbidden: unverified, and told so", func(c *assert.CollectT) {
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "unverified", "reason", "Unverified"))
		assert.Equal(c, 1, events(c, e, pool, "Unverified"))
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_vm_disks", "outcome", "unverified", "reason", "Unverified"))
		assert.Equal(c, 1, events(c, e, fromImage, "Unverified"))
		assert.Equal(c, 1, events(c, e, fromURL, "Planned"))
		assert.Positive(c, metric(c, reg, "worker_image_goldens", "phase", "Populated"), "the cluster's goldens are still exported")
	})
	poolNote := notes(t, e, pool, "Unverified")[0]
	assert.Contains(t, poolNote, "HelmRelease cozy-system/kubernetes-worker-image, whose spec.valuesFrom names Secret cozy-system/catalog-values, which this identity may not get")
	assert.Contains(t, poolNote, "the worker-image chart's value catalogRelease.valuesFrom.secrets={catalog-values}")
	assert.NotContains(t, poolNote, "cozystack-values", "the platform's Secret is never read")
	diskNote := notes(t, e, fromImage, "Unverified")[0]
	assert.Contains(t, diskNote, "Secret cozy-system/vm-images-values")
	assert.Contains(t, diskNote, "imageCatalog.valuesFrom.secrets={vm-images-values}")
	assert.Zero(t, events(t, e, fromURL, "Unverified"), "a disk that clones no image does not read the image catalog")

	// Planned again and again (requeued until granted): the same verdict
	// is not told twice.
	time.Sleep(1500 * time.Millisecond)
	assert.Equal(t, 1, events(t, e, pool, "Unverified"))
	assert.Equal(t, 1, events(t, e, fromImage, "Unverified"))

	bind(t, e, system, "worker-image-controller-catalog-values", user, chartRules(t, "Role", "worker-image-controller-catalog-values"))
	bind(t, e, system, "worker-image-controller-images-values", user, chartRules(t, "Role", "worker-image-controller-images-values"))
	eventually(t, "granted by the chart's values: planned", func(c *assert.CollectT) {
		assert.Equal(c, 0.0, metric(c, reg, "worker_image_pools", "outcome", "unverified", "reason", "Unverified"))
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "planned", "reason", "Planned"))
		assert.Equal(c, 1, events(c, e, pool, "Planned"))
		assert.Equal(c, 0.0, metric(c, reg, "worker_image_vm_disks", "outcome", "unverified", "reason", "Unverified"))
		assert.Equal(c, 1, events(c, e, fromImage, "GoldenNotInCatalog"), "the image catalog's images: [] is read")
	})

	later := newPool(t, e, ns, "later-md0", map[string]any{"cluster": "later", "osImage": map[string]any{"builtin": map[string]any{}}})
	eventually(t, "a pool made once granted: planned", func(c *assert.CollectT) {
		assert.Equal(c, 1, events(c, e, later, "Planned"))
	})
	assert.Zero(t, events(t, e, later, "Unverified"), "granted: no Unverified")
	for _, n := range notes(t, e, pool, "Planned") {
		assert.False(t, strings.HasPrefix(n, "unverified"), n)
	}
	_ = ctx
}
