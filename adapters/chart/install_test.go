package chart_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/controller"
	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
)

func TestMain(m *testing.M) { os.Exit(apiserver.Main(m)) }

// The chart installs on the real API server (every object it renders but
// those of CRDs the suite does not serve: cert-manager's and
// prometheus-operator's), and the controller, run as the chart's
// ServiceAccount with the chart's RBAC and nothing else, plans a pool and
// records its Event, leader election included.
func TestChartInstalls(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	ctx := context.Background()
	objs, err := render(t, ns, map[string]any{"catalogRelease": map[string]any{"name": ""}})
	require.NoError(t, err)
	e.Namespace(t, ns)
	e.Namespace(t, "cozy-system") // the image catalog's release, which the webhook gets by name
	var installed []string
	for _, o := range objs {
		err := e.Client.Create(ctx, o)
		if meta.IsNoMatchError(err) {
			t.Logf("not served here, not installed: %s %s", o.GetAPIVersion(), o.GetKind())
			continue
		}
		if apierrors.IsAlreadyExists(err) {
			continue
		}
		require.NoError(t, err, "install %s/%s", o.GetKind(), o.GetName())
		installed = append(installed, o.GetKind()+"/"+o.GetName())
		t.Cleanup(func() { _ = e.Client.Delete(context.Background(), o) })
	}
	assert.Contains(t, installed, "ValidatingWebhookConfiguration/worker-image-webhook")
	assert.Contains(t, installed, "PodDisruptionBudget/worker-image-webhook")
	assert.Contains(t, installed, "Deployment/worker-image-controller")
	// The webhook configuration points at a Service with no pod behind it
	// here: take it out of the way of the pool written below.
	cfg := find(objs, "ValidatingWebhookConfiguration", "worker-image-webhook")
	require.NoError(t, e.Client.Delete(ctx, cfg))

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "worker-image-controller"}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	require.NoError(t, e.Client.SubResource("token").Create(ctx, sa, tr))
	as := rest.AnonymousClientConfig(e.Config)
	as.BearerToken = tr.Status.Token

	mgr, err := ctrl.NewManager(as, ctrl.Options{
		Scheme:                  apiserver.Scheme(),
		Cache:                   controllerruntime.CacheOptions(),
		Client:                  client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		Controller:              config.Controller{SkipNameValidation: ptr.To(true)},
		LeaderElection:          true,
		LeaderElectionID:        controller.Name,
		LeaderElectionNamespace: ns,
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

	e.Namespace(t, "tenant-chart")
	pool := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"cluster": "chart", "osImage": map[string]any{"builtin": map[string]any{}}}}}
	pool.SetAPIVersion("apps.cozystack.io/v1alpha1")
	pool.SetKind("KubernetesNodes")
	pool.SetNamespace("tenant-chart")
	pool.SetName("chart-md0")
	require.NoError(t, e.Client.Create(ctx, pool))
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), pool) })
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var list eventsv1.EventList
		require.NoError(c, e.Client.List(ctx, &list, client.InNamespace("tenant-chart")))
		var reasons []string
		for _, ev := range list.Items {
			if ev.Regarding.Name == pool.GetName() {
				reasons = append(reasons, ev.Reason)
			}
		}
		assert.Contains(c, reasons, "Planned", "planned under the chart's RBAC, the catalog read back from the goldens")
		assert.NotContains(c, reasons, "StateUnverified", "the chart's RBAC lets it read every kind a plan needs")
	}, 60*time.Second, 100*time.Millisecond)
}
