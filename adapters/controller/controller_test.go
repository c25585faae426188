package controller_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/controller"
	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/compact"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

func TestMain(m *testing.M) { os.Exit(apiserver.Main(m)) }

var (
	helmReleaseGVK = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}
	poolGVK        = schema.GroupVersionKind{Group: "apps.cozystack.io", Version: "v1alpha1", Kind: "KubernetesNodes"}
	catalogRelease = client.ObjectKey{Namespace: "cozy-system", Name: "kubernetes-worker-image"}
	installCRD     sync.Once
)

// helmReleases installs a minimal Flux HelmRelease CRD, once.
func helmReleases(t *testing.T, e *apiserver.Env) {
	t.Helper()
	installCRD.Do(func() {
		keep := true
		anything := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}
		gvk := helmReleaseGVK
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "helmreleases." + gvk.Group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: gvk.Group,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: gvk.Kind, ListKind: gvk.Kind + "List", Plural: "helmreleases", Singular: "helmrelease"},
				Scope: apiextensionsv1.NamespaceScoped,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: gvk.Version, Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": anything, "status": anything},
					}},
				}},
			},
		}
		_, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}})
		require.NoError(t, err)
	})
}

// run starts the controller as cfg's identity with its metrics in a
// registry of its own, and stops it when the test ends.
func run(t *testing.T, cfg *rest.Config) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	// Worker disks held compactly, as the shipped controller holds them.
	cacheOpts := controllerruntime.CacheOptions()
	cacheOpts.DefaultTransform = compact.After(cacheOpts.DefaultTransform)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     apiserver.Scheme(),
		Cache:      cacheOpts,
		Client:     client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, controller.Options{CatalogRelease: catalogRelease, Registerer: reg}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	return reg
}

// metric is the value of one series (a histogram's sample count), 0 when
// it does not exist.
func metric(t require.TestingT, reg *prometheus.Registry, name string, labels ...string) float64 {
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if got[labels[i]] != labels[i+1] {
					continue series
				}
			}
			return value(m)
		}
	}
	return 0
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

func eventually(t *testing.T, what string, f func(c *assert.CollectT)) {
	t.Helper()
	require.EventuallyWithT(t, f, 30*time.Second, 50*time.Millisecond, what)
}

// events counts the occurrences of events of reason on the pool. The
// recorder makes a repeated event a series: the server holds its count
// from the second occurrence on, later ones only when the recorder
// refreshes it, so a count above 2 of one note cannot be seen at once.
func events(t require.TestingT, e *apiserver.Env, pool *unstructured.Unstructured, reason string) int {
	var list eventsv1.EventList
	require.NoError(t, e.Client.List(context.Background(), &list, client.InNamespace(pool.GetNamespace())))
	n := 0
	for _, ev := range list.Items {
		if ev.Regarding.Name == pool.GetName() && ev.Reason == reason {
			assert.Equal(t, controller.Name, ev.ReportingController)
			n++
			if ev.Series != nil {
				n += int(ev.Series.Count) - 1
			}
		}
	}
	return n
}

// newCatalogRelease creates the catalog release with spec, deleted when
// the test ends.
func newCatalogRelease(t *testing.T, e *apiserver.Env, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	hr := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	hr.SetGroupVersionKind(helmReleaseGVK)
	hr.SetNamespace(catalogRelease.Namespace)
	hr.SetName(catalogRelease.Name)
	require.NoError(t, e.Client.Create(context.Background(), hr))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), hr) })
	return hr
}

func newPool(t *testing.T, e *apiserver.Env, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	e.Namespace(t, namespace)
	pool := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	pool.SetGroupVersionKind(poolGVK)
	pool.SetNamespace(namespace)
	pool.SetName(name)
	require.NoError(t, e.Client.Create(context.Background(), pool))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), pool) })
	return pool
}

func patch(t *testing.T, e *apiserver.Env, obj client.Object, p map[string]any, status bool) {
	t.Helper()
	raw, err := json.Marshal(p)
	require.NoError(t, err)
	if status {
		require.NoError(t, e.Client.Status().Patch(context.Background(), obj, client.RawPatch("application/merge-patch+json", raw)))
		return
	}
	require.NoError(t, e.Client.Patch(context.Background(), obj, client.RawPatch("application/merge-patch+json", raw)))
}

// The controller plans a pool and moves its metric and its Events on each
// change that moves its verdict (the catalog release, a StorageProfile,
// the CDI resource, the default class, the golden's import), and on none
// that cannot (another class's profile, an annotation no plan reads).
func TestChangesMoveVerdicts(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleases(t, e)
	e.Namespace(t, catalogRelease.Namespace)
	reg := run(t, e.Config)
	builtin := map[string]any{"builtin": map[string]any{}}
	pool := newPool(t, e, "tenant-ctl", "demo-md0", map[string]any{"cluster": "demo", "osImage": builtin})
	replans := func(c require.TestingT, trigger string) float64 {
		return metric(c, reg, "worker_image_replan_duration_seconds", "trigger", trigger)
	}

	eventually(t, "no catalog release: the catalog serves no golden", func(c *assert.CollectT) {
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "GoldenNotInCatalog"))
		assert.Equal(c, 1, events(c, e, pool, "GoldenNotInCatalog"))
	})

	newCatalogRelease(t, e, map[string]any{"values": map[string]any{"enabled": true}})
	eventually(t, "the catalog release: planned", func(c *assert.CollectT) {
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "planned", "reason", "Planned"))
		assert.Equal(c, 0.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "GoldenNotInCatalog"))
		assert.Equal(c, 1, events(c, e, pool, "Planned"))
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_goldens", "phase", "Populated"))
		assert.GreaterOrEqual(c, replans(c, "CatalogRelease"), 1.0)
	})

	t.Run("StorageProfile", func(t *testing.T) {
		// CDI reconciles a profile's spec into its status, which is what
		// it clones by: write the status, as CDI would.
		strategy := func(class, s string) {
			patch(t, e, (&unstructuredProfile{class}).obj(), map[string]any{"status": map[string]any{"cloneStrategy": s}}, true)
		}
		strategy(fixtures.LocalClass, "csi-clone")
		t.Cleanup(func() { strategy(fixtures.LocalClass, "copy") })
		strategy(fixtures.ReplicatedClass, "copy")
		t.Cleanup(func() { strategy(fixtures.ReplicatedClass, "csi-clone") })
		eventually(t, "its class's profile copies: a predicted host-assisted clone", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_predicted_host_assisted_clones"))
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "HostAssistedClone"))
			assert.Equal(c, 1, events(c, e, pool, "HostAssistedClone"))
		})
		assert.Equal(t, 1.0, replans(t, "StorageProfile"), "the other class's profile, changed first, planned nothing again")
		strategy(fixtures.ReplicatedClass, "csi-clone")
		eventually(t, "back to csi-clone", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, metric(c, reg, "worker_image_predicted_host_assisted_clones"))
			assert.Equal(c, 2, events(c, e, pool, "Planned"))
		})
	})

	t.Run("CDI", func(t *testing.T) {
		cdi := fixtures.CDI(nil)
		patch(t, e, cdi, map[string]any{"spec": map[string]any{"cloneStrategyOverride": "copy"}}, false)
		t.Cleanup(func() { patch(t, e, cdi, map[string]any{"spec": map[string]any{"cloneStrategyOverride": nil}}, false) })
		eventually(t, "CDI's override copies", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_predicted_host_assisted_clones"))
			assert.Equal(c, 2, events(c, e, pool, "HostAssistedClone"))
		})
		patch(t, e, cdi, map[string]any{"spec": map[string]any{"cloneStrategyOverride": nil}}, false)
		eventually(t, "no override", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, metric(c, reg, "worker_image_predicted_host_assisted_clones"))
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "planned", "reason", "Planned"))
		})
	})

	t.Run("StorageClass", func(t *testing.T) {
		onDefault := newPool(t, e, "tenant-ctl", "dflt-md0", map[string]any{"cluster": "dflt", "storageClass": "", "osImage": builtin})
		eventually(t, "a pool on the default class", func(c *assert.CollectT) {
			assert.Equal(c, 1, events(c, e, onDefault, "Planned"))
		})
		before := replans(t, "StorageClass")
		planned := events(t, e, pool, "Planned")
		local := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: fixtures.LocalClass}}
		patch(t, e, local, map[string]any{"metadata": map[string]any{"annotations": map[string]any{"example.com/owner": "ops"}}}, false)
		replicated := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: fixtures.ReplicatedClass}}
		move := func(from, to *storagev1.StorageClass) {
			patch(t, e, from, map[string]any{"metadata": map[string]any{"annotations": map[string]any{storage.DefaultAnnotation: nil}}}, false)
			patch(t, e, to, map[string]any{"metadata": map[string]any{"annotations": map[string]any{storage.DefaultAnnotation: "true"}}}, false)
		}
		move(replicated, local)
		t.Cleanup(func() { move(local, replicated) })
		eventually(t, "the default moved off the golden's class", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "StorageClassMismatch"))
			assert.Equal(c, 1, events(c, e, onDefault, "StorageClassMismatch"))
		})
		assert.Greater(t, replans(t, "StorageClass"), before)
		assert.Equal(t, planned, events(t, e, pool, "Planned"), "the pool on its own class is not told again")
		assert.Equal(t, 1.0, metric(t, reg, "worker_image_pools", "outcome", "planned", "reason", "Planned"), "nor does its verdict move")
	})

	t.Run("Golden", func(t *testing.T) {
		dv := fixtures.GoldenDataVolume(fixtures.Golden, fixtures.DefaultVersion, fixtures.ReplicatedClass, "6Gi", "Failed")
		patch(t, e, dv, map[string]any{"status": map[string]any{"phase": "Failed"}}, true)
		t.Cleanup(func() { patch(t, e, dv, map[string]any{"status": map[string]any{"phase": "Succeeded"}}, true) })
		eventually(t, "the golden failed", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_goldens", "phase", "Failed"))
			assert.Equal(c, 0.0, metric(c, reg, "worker_image_goldens", "phase", "Populated"))
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "GoldenImportFailed"))
			assert.Equal(c, 1, events(c, e, pool, "GoldenImportFailed"))
		})
	})

	t.Run("WorkerDisks", func(t *testing.T) {
		// A pool on the default class takes the class its bound disks are
		// on (frozen): disks on two classes are a conflict, and deleting
		// one of them ends it. The controller holds them compactly, as the
		// shipped controller does; each create, status change and delete
		// reaches the plan.
		frozen := newPool(t, e, "tenant-ctl", "frz-md0", map[string]any{"cluster": "frz", "storageClass": "", "osImage": builtin})
		eventually(t, "a pool on the default class, no disk yet", func(c *assert.CollectT) {
			assert.Equal(c, 1, events(c, e, frozen, "Planned"))
		})
		ctx := context.Background()
		disk := func(name, class string) *corev1.PersistentVolumeClaim {
			pvc := fixtures.WorkerPVC("tenant-ctl", name, "frz-md0", fixtures.Golden, class)
			require.NoError(t, e.Client.Create(ctx, pvc))
			t.Cleanup(func() { _ = e.Client.Delete(ctx, pvc) })
			patch(t, e, pvc, map[string]any{"status": map[string]any{"phase": "Bound"}}, true)
			return pvc
		}
		planned := events(t, e, pool, "Planned")
		// A bound PVC on the other class that is no pool's disk: it is
		// there throughout, and moves nothing.
		other := fixtures.WorkerPVC("tenant-ctl", "of-no-pool", "frz-md0", fixtures.Golden, fixtures.LocalClass)
		other.Annotations = nil
		require.NoError(t, e.Client.Create(ctx, other))
		t.Cleanup(func() { _ = e.Client.Delete(ctx, other) })
		patch(t, e, other, map[string]any{"status": map[string]any{"phase": "Bound"}}, true)
		before := replans(t, "PersistentVolumeClaim")
		disk("frz-disk-0", fixtures.ReplicatedClass)
		eventually(t, "the first disk is planned", func(c *assert.CollectT) {
			assert.Greater(c, replans(c, "PersistentVolumeClaim"), before)
		})
		second := disk("frz-disk-1", fixtures.LocalClass)
		eventually(t, "disks on two classes: a conflict", func(c *assert.CollectT) {
			assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "FrozenStorageClassConflict"))
			assert.Equal(c, 1, events(c, e, frozen, "FrozenStorageClassConflict"))
		})
		assert.Equal(t, planned, events(t, e, pool, "Planned"), "another pool's disks leave it alone")
		// The API server's claim protection holds a deleted PVC until no
		// pod uses it: no kubelet here ever says so.
		patch(t, e, second, map[string]any{"metadata": map[string]any{"finalizers": nil}}, false)
		require.NoError(t, e.Client.Delete(ctx, second))
		eventually(t, "one class again, the PVC of no pool still there: planned", func(c *assert.CollectT) {
			assert.Equal(c, 0.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "FrozenStorageClassConflict"))
			assert.Equal(c, 2, events(c, e, frozen, "Planned"))
		})
	})
}

// unstructuredProfile names a StorageProfile for a patch.
type unstructuredProfile struct{ class string }

func (p *unstructuredProfile) obj() client.Object {
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile"})
	o.SetName(p.class)
	return o
}

// The catalog release's values come through a ConfigMap its valuesFrom
// names: an edit to it re-plans every pool, and an edit to another
// ConfigMap of the namespace re-plans nothing.
func TestCatalogValuesFrom(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleases(t, e)
	ctx := context.Background()
	e.Namespace(t, catalogRelease.Namespace)
	reg := run(t, e.Config)
	configMap := func(name, values string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: catalogRelease.Namespace, Name: name}, Data: map[string]string{"values.yaml": values}}
		require.NoError(t, e.Client.Create(ctx, cm))
		t.Cleanup(func() { _ = e.Client.Delete(ctx, cm) })
		return cm
	}
	edit := func(cm *corev1.ConfigMap, values string) {
		patch(t, e, cm, map[string]any{"data": map[string]any{"values.yaml": values}}, false)
	}
	values := configMap("worker-image-values", "enabled: true\n")
	other := configMap("other-values", "enabled: true\n")
	newCatalogRelease(t, e, map[string]any{"valuesFrom": []any{
		map[string]any{"kind": "ConfigMap", "name": values.Name},
	}})
	pool := newPool(t, e, "tenant-values", "demo-md0", map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}})
	eventually(t, "the catalog's values, from the ConfigMap: planned", func(c *assert.CollectT) {
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "planned", "reason", "Planned"))
		assert.Equal(c, 1, events(c, e, pool, "Planned"))
	})
	replans := metric(t, reg, "worker_image_replan_duration_seconds", "trigger", "ValuesFrom")
	edit(other, "enabled: false\n")
	edit(values, "enabled: false\n")
	eventually(t, "the catalog disabled through its ConfigMap: refused", func(c *assert.CollectT) {
		assert.Equal(c, 1.0, metric(c, reg, "worker_image_pools", "outcome", "refused", "reason", "GoldenNotInCatalog"))
		assert.Equal(c, 1, events(c, e, pool, "GoldenNotInCatalog"))
	})
	assert.Equal(t, replans+2, metric(t, reg, "worker_image_replan_duration_seconds", "trigger", "ValuesFrom"),
		"the pool and the goldens are planned again, once each: the other ConfigMap is not watched")
}
