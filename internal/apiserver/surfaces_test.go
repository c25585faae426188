package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/adapters/controller"
	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
)

// surfaceVerdict is what one surface concluded of one pool: its outcome
// (planned, refused, unverified, or failed: the surface could not judge)
// and the reasons of its refusals, sorted.
type surfaceVerdict struct {
	Outcome string
	Reasons []string
}

func (v surfaceVerdict) String() string { return v.Outcome + " " + strings.Join(v.Reasons, ",") }

// cliPlan is the verdict of `plan kubernetesnodes/NAME` on kubeconfig kc,
// the catalog read from the cluster; its exit status must agree with it.
func cliPlan(t *testing.T, kc, namespace, name string, more ...string) surfaceVerdict {
	t.Helper()
	code, stdout, stderr := run(t, "", append([]string{"plan", "kubernetesnodes/" + name, "-n", namespace, "--kubeconfig", kc, "-o", "json"}, more...)...)
	var out struct {
		Pools []struct {
			Outcome  string
			Refusals []struct{ Reason string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), "exit %d: %s%s", code, stdout, stderr)
	require.Len(t, out.Pools, 1, stderr)
	v := surfaceVerdict{Outcome: out.Pools[0].Outcome}
	for _, r := range out.Pools[0].Refusals {
		v.Reasons = append(v.Reasons, r.Reason)
	}
	slices.Sort(v.Reasons)
	want := map[string]int{"planned": 0, "refused": 3, "unverified": 4}[v.Outcome]
	assert.Equal(t, want, code, "the exit status of %s: %s", v, stderr)
	return v
}

// admit is the verdict of the webhook's Validator on a create of obj.
func admit(t *testing.T, v *webhook.Validator, obj *unstructured.Unstructured) surfaceVerdict {
	t.Helper()
	resp := review(t, v, obj)
	if resp.Allowed {
		return surfaceVerdict{Outcome: "planned"}
	}
	out := surfaceVerdict{Outcome: "failed"}
	if d := resp.Result.Details; d != nil && len(d.Causes) > 0 {
		out.Outcome = "refused"
		for _, c := range d.Causes {
			if !slices.Contains(out.Reasons, string(c.Type)) {
				out.Reasons = append(out.Reasons, string(c.Type))
			}
		}
		slices.Sort(out.Reasons)
	}
	return out
}

// review is the webhook Validator's answer to a create of obj.
func review(t *testing.T, v *webhook.Validator, obj *unstructured.Unstructured) admission.Response {
	t.Helper()
	raw, err := json.Marshal(obj.Object)
	require.NoError(t, err)
	gvk := obj.GroupVersionKind()
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: types.UID("uid-" + obj.GetName()), Operation: admissionv1.Create,
		Kind:      metav1.GroupVersionKind(gvk),
		Namespace: obj.GetNamespace(), Name: obj.GetName(),
		Object: runtime.RawExtension{Raw: raw},
	}}
	hooks := registered(v)
	hook := hooks[webhook.PoolsPath]
	if gvk.Kind == helmReleaseGVK.Kind {
		hook = hooks[webhook.ReleasesPath]
	}
	return hook.Handle(context.Background(), req)
}

// registered is the Validator's webhooks by path, as Register serves them.
func registered(v *webhook.Validator) map[string]*admission.Webhook {
	r := recorder{hooks: map[string]*admission.Webhook{}}
	v.Register(r)
	return r.hooks
}

// recorder is a webhook server that keeps what is registered on it.
type recorder struct {
	crwebhook.Server
	hooks map[string]*admission.Webhook
}

func (r recorder) Register(path string, hook http.Handler) { r.hooks[path] = hook.(*admission.Webhook) }

// remade deletes obj and creates it again, a new object of the same name.
func remade(t *testing.T, e *apiserver.Env, obj client.Object) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, client.IgnoreNotFound(e.Client.Delete(ctx, obj.DeepCopyObject().(client.Object))))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		fresh := obj.DeepCopyObject().(client.Object)
		fresh.SetResourceVersion("")
		fresh.SetUID("")
		require.NoError(c, e.Client.Create(ctx, fresh))
	}, 30*time.Second, 100*time.Millisecond)
}

// runController starts the controller as cfg's identity, reading the
// catalog release, and stops it when the test ends.
func runController(t *testing.T, cfg *rest.Config) {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     apiserver.Scheme(),
		Cache:      controllerruntime.CacheOptions(),
		Client:     client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, controller.Options{CatalogRelease: webhook.DefaultCatalogRelease(), Registerer: prometheus.NewRegistry()}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
}

// controllerVerdict is the controller's verdict on a pool, from the
// Events it recorded on it: Planned (with a Warning per warning), or a
// Warning per refusal reason, whose note says "refused".
func controllerVerdict(t *testing.T, e *apiserver.Env, kind, namespace, name string) surfaceVerdict {
	t.Helper()
	var out surfaceVerdict
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var list eventsv1.EventList
		require.NoError(c, e.Client.List(context.Background(), &list, client.InNamespace(namespace)))
		out = surfaceVerdict{}
		for _, ev := range list.Items {
			if ev.ReportingController != controller.Name || ev.Regarding.Kind != kind || ev.Regarding.Name != name {
				continue
			}
			switch {
			case ev.Reason == "Planned":
				out.Outcome = "planned"
			case ev.Reason == "Unverified":
				out.Outcome = "unverified"
			case strings.HasPrefix(ev.Note, "refused: "):
				if out.Outcome == "" {
					out.Outcome = "refused"
				}
				if !slices.Contains(out.Reasons, ev.Reason) {
					out.Reasons = append(out.Reasons, ev.Reason)
				}
			}
		}
		assert.NotEmpty(c, out.Outcome, "the controller recorded a verdict on %s %s/%s", kind, namespace, name)
	}, 30*time.Second, 100*time.Millisecond)
	if out.Outcome != "refused" {
		out.Reasons = nil
	}
	slices.Sort(out.Reasons)
	return out
}
