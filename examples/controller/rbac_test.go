package controller_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/examples/controller"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// markers are the RBAC rules of the +kubebuilder:rbac markers in
// reconciler.go, as controller-gen renders them.
func markers(t *testing.T) []rbacv1.PolicyRule {
	t.Helper()
	src, err := os.ReadFile("reconciler.go")
	require.NoError(t, err)
	var rules []rbacv1.PolicyRule
	for line := range strings.Lines(string(src)) {
		spec, ok := strings.CutPrefix(strings.TrimSpace(line), "// +kubebuilder:rbac:")
		if !ok {
			continue
		}
		var r rbacv1.PolicyRule
		for _, kv := range strings.Split(spec, ",") {
			k, v, _ := strings.Cut(kv, "=")
			vs := strings.Split(strings.Trim(v, `"`), ";")
			switch k {
			case "groups":
				r.APIGroups = vs
			case "resources":
				r.Resources = vs
			case "verbs":
				r.Verbs = vs
			}
		}
		rules = append(rules, r)
	}
	return rules
}

// resources is where the API serves each kind a plan reads.
var resources = map[state.Kind][2]string{
	state.StorageClass:          {"storage.k8s.io", "storageclasses"},
	state.PersistentVolumeClaim: {"", "persistentvolumeclaims"},
	state.DataVolume:            {"cdi.kubevirt.io", "datavolumes"},
	state.StorageProfile:        {"cdi.kubevirt.io", "storageprofiles"},
	state.CDI:                   {"cdi.kubevirt.io", "cdis"},
	state.CSIDriver:             {"storage.k8s.io", "csidrivers"},
	state.VolumeSnapshotClass:   {"snapshot.storage.k8s.io", "volumesnapshotclasses"},
	state.CDIConfig:             {"cdi.kubevirt.io", "cdiconfigs"},
	state.PersistentVolume:      {"", "persistentvolumes"},
}

func grants(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// The markers grant get, list and watch of every kind a pool's plan reads
// (plan.Needs), and what the reconciler writes.
func TestMarkersCoverWhatPlansRead(t *testing.T) {
	rules := markers(t)
	need := plan.Needs(fleet.BuiltinPool("tenant", "c"))
	var read state.Kind
	for _, r := range append(need.Lists, need.Gets...) {
		read |= r.Kind
	}
	require.NotZero(t, read)
	for _, k := range read.Each() {
		gr, ok := resources[k]
		require.True(t, ok, "a plan reads %v: say where it is served", k)
		for _, verb := range []string{"get", "list", "watch"} {
			assert.True(t, grants(rules, gr[0], gr[1], verb), "the markers do not let the reconciler %s %s, which a plan reads", verb, gr[1])
		}
	}
	assert.True(t, grants(rules, "apps.cozystack.io", "kubernetesnodes/status", "update"))
	assert.True(t, grants(rules, "events.k8s.io", "events", "create"))
	assert.True(t, grants(rules, "authorization.k8s.io", "selfsubjectaccessreviews", "create"))
}

// serviceAccount makes a ServiceAccount whom a ClusterRole grants rules
// and nothing else, and returns a config that authenticates as it with a
// token from the TokenRequest API, as a pod's would.
func serviceAccount(t *testing.T, e *apiserver.Env, name string, rules []rbacv1.PolicyRule) *rest.Config {
	t.Helper()
	ctx := context.Background()
	const ns = "worker-image-system"
	e.Namespace(t, ns)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	for _, o := range []client.Object{sa, role, binding} {
		require.NoError(t, e.Client.Create(ctx, o))
		t.Cleanup(func() { _ = e.Client.Delete(context.Background(), o) })
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	require.NoError(t, e.Client.SubResource("token").Create(ctx, sa, tr), "a token for the ServiceAccount")
	cfg := rest.AnonymousClientConfig(e.Config)
	cfg.BearerToken = tr.Status.Token
	// RBAC reaches the authorizer through an informer: wait until it
	// applies the role.
	c, err := client.New(cfg, client.Options{Scheme: apiserver.Scheme()})
	require.NoError(t, err)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		pools := &unstructured.UnstructuredList{}
		pools.SetGroupVersionKind(controller.PoolGVK.GroupVersion().WithKind(controller.PoolGVK.Kind + "List"))
		assert.NoError(ct, c.List(ctx, pools))
	}, 10*time.Second, 50*time.Millisecond)
	return cfg
}

// runAs starts a manager with the reconciler as cfg's identity, its cache
// made with controllerruntime.CacheOptions.
func runAs(t *testing.T, cfg *rest.Config) {
	t.Helper()
	opts := controllerruntime.CacheOptions()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     apiserver.Scheme(),
		Cache:      opts,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Client:     client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, controller.New(mgr, fleet.DefaultCatalog()).SetupWithManager(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
}

// The reconciler runs under a ServiceAccount granted exactly its markers'
// RBAC, and plans a pool; granted all of it but PersistentVolumes, it still
// records the pool's condition, warning that the golden's volume is
// unknown, instead of a read that waits on their informer until the
// reconcile times out. (A kind the reconciler watches, StorageClasses or
// DataVolumes, is one its manager cannot start without.)
func TestUnderItsRBAC(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	builtin := map[string]any{"builtin": map[string]any{}}

	t.Run("Markers", func(t *testing.T) {
		runAs(t, serviceAccount(t, e, "example-controller", markers(t)))
		pool := newPool(t, e, "tenant-rbac", "demo", map[string]any{"cluster": "demo", "osImage": builtin})
		expect(t, e, pool, metav1.ConditionTrue, controller.ReasonPlanned)
		expectEvent(t, e, pool, "Normal", controller.ReasonPlanned)
	})
	t.Run("WithoutPersistentVolumes", func(t *testing.T) {
		var rules []rbacv1.PolicyRule
		for _, r := range markers(t) {
			r.Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == "persistentvolumes" })
			if len(r.Resources) > 0 {
				rules = append(rules, r)
			}
		}
		runAs(t, serviceAccount(t, e, "example-controller-without-volumes", rules))
		pool := newPool(t, e, "tenant-rbac-novolumes", "demo", map[string]any{"cluster": "demo", "osImage": builtin})
		expectEvent(t, e, pool, "Warning", "StateUnverified")
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(controller.PoolGVK)
		require.NoError(t, e.Client.Get(context.Background(), client.ObjectKeyFromObject(pool), got))
		cond := condition(t, got)
		require.NotNil(t, cond)
		assert.Contains(t, cond.Message, "PersistentVolume")
	})
}

// A read that never answers ends with the reconcile's timeout, and the
// pool is requeued.
func TestReconcileIsBounded(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	pool := newPool(t, e, "tenant-bounded", "b", map[string]any{"cluster": "b", "osImage": map[string]any{"builtin": map[string]any{}}})
	hangs := readerFunc(func(ctx context.Context, _ state.Request) (*state.State, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	r := controller.NewReconciler(e.Client, hangs, fleet.DefaultCatalog(), events.NewFakeRecorder(16), 50*time.Millisecond)
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(pool)})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
