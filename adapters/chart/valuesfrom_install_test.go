package chart_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/controller"
	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
)

// Under the chart's RBAC alone, the controller reads the image catalog
// from the Secret its release's valuesFrom names, granted by name, and
// sees an edit to it: a VMDisk refused for an image the catalog lacks is
// planned once the Secret adds it.
func TestChartGrantsTheControllerItsValuesFrom(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	ctx := context.Background()
	keep := true
	anything := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}
	_, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{{
		ObjectMeta: metav1.ObjectMeta{Name: "helmreleases.helm.toolkit.fluxcd.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "helm.toolkit.fluxcd.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "HelmRelease", ListKind: "HelmReleaseList", Plural: "helmreleases", Singular: "helmrelease"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v2", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": anything, "status": anything}}}}},
		},
	}}})
	require.NoError(t, err)

	objs, err := render(t, ns, map[string]any{
		"catalogRelease": map[string]any{"name": ""},
		"imageCatalog":   map[string]any{"valuesFrom": map[string]any{"secrets": []any{"images-values"}}},
	})
	require.NoError(t, err)
	e.Namespace(t, ns)
	e.Namespace(t, "cozy-system")
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
		default:
			continue
		}
		err := e.Client.Create(ctx, o)
		if apierrors.IsAlreadyExists(err) {
			continue
		}
		require.NoError(t, err, "install %s/%s", o.GetKind(), o.GetName())
		t.Cleanup(func() { _ = e.Client.Delete(context.Background(), o) })
	}
	require.NotNil(t, find(objs, "Role", "worker-image-controller-images-values"))

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "cozy-system", Name: "images-values"}, StringData: map[string]string{"values.yaml": "images: []\n"}}
	require.NoError(t, e.Client.Create(ctx, secret))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), secret) })
	hr := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"valuesFrom": []any{map[string]any{"kind": "Secret", "name": "images-values"}}}}}
	hr.SetAPIVersion("helm.toolkit.fluxcd.io/v2")
	hr.SetKind("HelmRelease")
	hr.SetNamespace("cozy-system")
	hr.SetName("vm-default-images")
	require.NoError(t, e.Client.Create(ctx, hr))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), hr) })

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "worker-image-controller"}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	require.NoError(t, e.Client.SubResource("token").Create(ctx, sa, tr))
	as := rest.AnonymousClientConfig(e.Config)
	as.BearerToken = tr.Status.Token
	mgr, err := ctrl.NewManager(as, ctrl.Options{
		Scheme:     apiserver.Scheme(),
		Cache:      controllerruntime.CacheOptions(),
		Client:     client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, controller.Options{Registerer: prometheus.NewRegistry()}))
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})

	e.Namespace(t, "tenant-chart-vmd")
	disk := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi", "storageClass": "replicated"}}}
	disk.SetAPIVersion("apps.cozystack.io/v1alpha1")
	disk.SetKind("VMDisk")
	disk.SetNamespace("tenant-chart-vmd")
	disk.SetName("ubuntu")
	require.NoError(t, e.Client.Create(ctx, disk))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), disk) })
	reasons := func(c require.TestingT) []string {
		var list eventsv1.EventList
		require.NoError(c, e.Client.List(ctx, &list, client.InNamespace("tenant-chart-vmd")))
		var out []string
		for _, ev := range list.Items {
			if ev.Regarding.Name == disk.GetName() {
				out = append(out, ev.Reason)
			}
		}
		return out
	}
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Contains(c, reasons(c), "GoldenNotInCatalog", "the catalog, read from its Secret, has no image")
	}, 60*time.Second, 100*time.Millisecond)
	secret.StringData = map[string]string{"values.yaml": "images: [{name: ubuntu, url: https://cloud-images.example.com/ubuntu.img, storage: 20Gi}]\n"}
	require.NoError(t, e.Client.Update(ctx, secret))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Contains(c, reasons(c), "Planned", "the Secret's edit, watched by name, moves the verdict")
	}, 60*time.Second, 100*time.Millisecond)
}
