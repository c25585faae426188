package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// noServer is a webhook server that serves nothing: the test calls the
// Validator's handlers itself.
type noServer struct{ mux *http.ServeMux }

func (noServer) NeedLeaderElection() bool        { return false }
func (noServer) Register(string, http.Handler)   {}
func (noServer) Start(ctx context.Context) error { <-ctx.Done(); return nil }
func (noServer) StartedChecker() healthz.Checker { return healthz.Ping }
func (s noServer) WebhookMux() *http.ServeMux    { return s.mux }

// setupWebhook runs the webhook as it is deployed (webhook.Setup on a
// manager as cfg's identity, its cache, its check of what it may list),
// without serving it, and returns its Validator.
func setupWebhook(t *testing.T, cfg *rest.Config) *webhook.Validator {
	t.Helper()
	opts := webhook.Options{CatalogRelease: webhook.DefaultCatalogRelease()}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:        apiserver.Scheme(),
		Cache:         webhook.CacheOptions(opts),
		Client:        client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		WebhookServer: noServer{mux: http.NewServeMux()},
		Metrics:       metricsserver.Options{BindAddress: "0"},
	})
	require.NoError(t, err)
	v, err := webhook.Setup(mgr, opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	return v
}

// truthPools are the tenant's pools of the scenario, by name: their spec.
var truthPools = map[string]map[string]any{
	// The catalog's flavor on its golden's class.
	"demo-t0": builtin(nil),
	// Another class than the golden's.
	"demo-t1": builtin(map[string]any{"storageClass": fixtures.LocalClass}),
	// The retired golden: in the cluster, in no catalog entry.
	"demo-t2": builtin(map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": fixtures.OldVersion}}}),
	// Smaller than its golden.
	"demo-t3": builtin(map[string]any{"diskSize": "5Gi"}),
	// The HTTP path.
	"demo-t4": {"cluster": fixtures.ClusterName, "storageClass": fixtures.ReplicatedClass},
}

// helmVerify is helm-verify's verdict on the chart's rendering of a pool,
// run as Helm 4 runs it as a plugin (HELM_KUBECONTEXT, HELM_NAMESPACE,
// KUBECONFIG), or, helm4 false, as Helm 3 runs a post-renderer (its
// environment's KUBECONFIG, the context and namespace passed as
// --post-renderer-args): the disk as the chart renders it whatever the
// cluster holds (an offline plan against a catalog of every flavor), in
// its KubevirtMachineTemplate.
func helmVerify(t *testing.T, kc, name string, helm4 bool) surfaceVerdict {
	t.Helper()
	// The library refuses to render what it refuses without the cluster
	// too: those disks are the chart's rendering of demo-t0's with the
	// pool's class or size.
	spec, edit := truthPools[name], map[string][2]string{
		"demo-t1": {`storageClassName: "replicated"`, `storageClassName: "local"`},
		"demo-t3": {`storage: "20Gi"`, `storage: "5Gi"`},
	}[name]
	if edit[0] != "" {
		spec = truthPools["demo-t0"]
	}
	pool := kubernetesNodes(fixtures.TenantNamespace, name, spec)
	raw, err := json.Marshal(pool.Object)
	require.NoError(t, err)
	every := writeFile(t, "every.yaml", "enabled: true\nimages:\n- {schematicID: "+fixtures.DefaultSchematicID+", version: "+fixtures.DefaultVersion+"}\n"+
		"- {schematicID: "+fixtures.DefaultSchematicID+", version: "+fixtures.OldVersion+"}\n")
	t.Setenv("KUBECONFIG", "")
	code, disk, stderr := run(t, "", "plan", "-f", writeFile(t, "pool.json", string(raw)), "--catalog", every, "-o", "chart")
	require.Equal(t, 0, code, stderr)
	if edit[0] != "" {
		edited := strings.Replace(disk, edit[0], edit[1], 1)
		require.NotEqual(t, disk, edited, "the edit applies")
		disk = edited
	}
	rendered := "---\n# Source: kubernetes-nodes/templates/machinetemplate.yaml\napiVersion: infrastructure.cluster.x-k8s.io/v1alpha1\nkind: KubevirtMachineTemplate\n" +
		"metadata:\n  name: kubernetes-" + name + "-0f1e2d3c\n  namespace: " + fixtures.TenantNamespace + "\n" +
		"spec:\n  template:\n    spec:\n      virtualMachineTemplate:\n        metadata:\n          namespace: " + fixtures.TenantNamespace + "\n" +
		"        spec:\n          runStrategy: Always\n          dataVolumeTemplates:\n"
	for _, l := range strings.SplitAfter(disk, "\n") {
		if l != "" {
			rendered += "      " + l
		}
	}
	t.Setenv("KUBECONFIG", kc)
	args := []string{"helm-verify", "--context", "envtest", "-n", fixtures.TenantNamespace}
	if helm4 {
		t.Setenv("HELM_KUBECONTEXT", "envtest")
		t.Setenv("HELM_NAMESPACE", fixtures.TenantNamespace)
		args = args[:1]
	}
	code, stdout, stderr := run(t, rendered, args...)
	t.Setenv("KUBECONFIG", "")
	os.Unsetenv("HELM_KUBECONTEXT")
	os.Unsetenv("HELM_NAMESPACE")
	switch code {
	case 0:
		assert.Equal(t, rendered, stdout, "a clean render passes unchanged")
		return surfaceVerdict{Outcome: "planned"}
	case 3:
		v := surfaceVerdict{Outcome: "refused"}
		for _, m := range regexp.MustCompile(`: refused ([A-Z][A-Za-z]+)( at |: )`).FindAllStringSubmatch(stderr, -1) {
			if !slices.Contains(v.Reasons, m[1]) {
				v.Reasons = append(v.Reasons, m[1])
			}
		}
		slices.Sort(v.Reasons)
		return v
	}
	t.Fatalf("helm-verify: exit %d\n%s", code, stderr)
	return surfaceVerdict{}
}

// cliDiff is the verdict of diff on one live pool, its plan after a
// change that changes nothing of it (the chart's default flavor, as it
// is).
func cliDiff(t *testing.T, kc, name string) surfaceVerdict {
	t.Helper()
	code, stdout, stderr := run(t, "", "diff", "kubernetesnodes/"+name, "-n", fixtures.TenantNamespace, "--kubeconfig", kc,
		"--set", "talos.version="+fixtures.DefaultVersion, "-o", "json")
	var out struct {
		Outcome string
		Pools   []struct {
			After struct {
				Outcome  string
				Refusals []struct{ Reason string }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), "exit %d: %s%s", code, stdout, stderr)
	require.Len(t, out.Pools, 1, stderr)
	v := surfaceVerdict{Outcome: out.Pools[0].After.Outcome}
	if out.Outcome == "unverified" {
		v.Outcome = "unverified"
	}
	for _, r := range out.Pools[0].After.Refusals {
		if !slices.Contains(v.Reasons, r.Reason) {
			v.Reasons = append(v.Reasons, r.Reason)
		}
	}
	slices.Sort(v.Reasons)
	want := map[string]int{"planned": 0, "refused": 3, "unverified": 4}[v.Outcome]
	assert.Equal(t, want, code, "diff's exit status of %s: %s", v, stderr)
	return v
}

// consumersOf is what catalog consumers lists of golden, and its outcome
// ("" when it read every kind).
func consumersOf(t *testing.T, kc, golden string) ([]string, string) {
	t.Helper()
	code, stdout, stderr := run(t, "", "catalog", "consumers", golden, "--kubeconfig", kc, "-o", "json")
	var out struct {
		Outcome   string
		Consumers []struct{ Kind, Namespace, Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), "exit %d: %s%s", code, stdout, stderr)
	assert.Equal(t, map[string]int{"": 0, "unverified": 4}[out.Outcome], code, stderr)
	var names []string
	for _, c := range out.Consumers {
		names = append(names, c.Kind+" "+c.Namespace+"/"+c.Name)
	}
	return names, out.Outcome
}

// pruneOf is catalog prune's safe-to-delete list and outcome.
func pruneOf(t *testing.T, kc string) ([]string, string) {
	t.Helper()
	code, stdout, stderr := run(t, "", "catalog", "prune", "--kubeconfig", kc, "-o", "json")
	var out struct {
		Outcome      string
		SafeToDelete []string
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), "exit %d: %s%s", code, stdout, stderr)
	assert.Equal(t, map[string]int{"": 0, "unverified": 4}[out.Outcome], code, stderr)
	return out.SafeToDelete, out.Outcome
}

// One truth on a live cluster: one tenant with a pool of every outcome,
// the catalog release (spec.values over a valuesFrom ConfigMap), a retired
// golden and a pool that names it. For each pool, plan, diff, helm-verify
// (as Helm 4's plugin environment runs it), the webhook (as Setup deploys
// it) and the controller give the same verdict, one table; consumers list
// every pool whose values clone a golden, and prune calls none of those
// goldens safe to delete. Then the same cluster as a ServiceAccount that
// may not list StorageClasses or PersistentVolumeClaims: no surface says
// planned or safe to delete, and the CLI names both missing grants.
func TestOneTruth(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	helmReleasesServed(t, e)
	ctx := context.Background()
	ns := webhook.DefaultCatalogRelease().Namespace
	images := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "truth-images"}, Data: map[string]string{
		"values.yaml": "images:\n- {schematicID: " + fixtures.DefaultSchematicID + ", version: " + fixtures.DefaultVersion + "}\n",
	}}
	require.NoError(t, e.Client.Create(ctx, images))
	removed(t, e, images)
	cat := helmRelease(ns, webhook.DefaultCatalogRelease().Name, map[string]any{
		"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-kubernetes-worker-image-default-kubernetes-worker-image"},
		"valuesFrom": []any{
			map[string]any{"kind": "Secret", "name": "cozystack-values"},
			map[string]any{"kind": "ConfigMap", "name": "truth-images"},
		},
		"values": map[string]any{"enabled": true},
	})
	require.NoError(t, e.Client.Create(ctx, cat))
	removed(t, e, cat)
	for name, spec := range truthPools {
		p := kubernetesNodes(fixtures.TenantNamespace, name, spec)
		require.NoError(t, e.Client.Create(ctx, p))
		removed(t, e, p)
	}
	t.Setenv("KUBECONFIG", "")
	names := []string{"demo-t0", "demo-t1", "demo-t2", "demo-t3", "demo-t4"}

	// surfaces asks every surface of every pool, as cfg's identity.
	var v *webhook.Validator
	surfaces := func(t *testing.T, cfg *rest.Config, webhookSettled string) map[string]map[string]surfaceVerdict {
		kc := kubeconfigOf(t, cfg, fixtures.TenantNamespace)
		v = setupWebhook(t, cfg)
		runController(t, cfg)
		// A start records no Planned for a pool made before it: each pool
		// is made again once the controller runs, its verdict then an
		// Event.
		for _, name := range names {
			remade(t, e, kubernetesNodes(fixtures.TenantNamespace, name, truthPools[name]))
		}
		// The webhook's cache syncs (or its check finds what it may not
		// list) once the manager runs.
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			p := kubernetesNodes(fixtures.TenantNamespace, "demo-t0", truthPools["demo-t0"])
			assert.Equal(c, webhookSettled, admit(t, v, p).Outcome)
		}, 30*time.Second, 200*time.Millisecond)
		got := map[string]map[string]surfaceVerdict{}
		for _, name := range names {
			p := kubernetesNodes(fixtures.TenantNamespace, name, truthPools[name])
			got[name] = map[string]surfaceVerdict{
				"plan":        cliPlan(t, kc, fixtures.TenantNamespace, name),
				"diff":        cliDiff(t, kc, name),
				"helm-verify": helmVerify(t, kc, name, true),
				"helm 3":      helmVerify(t, kc, name, false),
				"webhook":     admit(t, v, p),
				"controller":  controllerVerdict(t, e, "KubernetesNodes", fixtures.TenantNamespace, name),
			}
		}
		return got
	}

	t.Run("admin", func(t *testing.T) {
		want := map[string]surfaceVerdict{
			"demo-t0": {Outcome: "planned"},
			"demo-t1": {Outcome: "refused", Reasons: []string{"StorageClassMismatch"}},
			"demo-t2": {Outcome: "refused", Reasons: []string{"GoldenNotInCatalog"}},
			"demo-t3": {Outcome: "refused", Reasons: []string{"DiskSmallerThanGolden"}},
			"demo-t4": {Outcome: "planned"},
		}
		got := surfaces(t, e.Config, "planned")
		for _, name := range names {
			for surface, v := range got[name] {
				assert.Equal(t, want[name], v, "%s on %s", surface, name)
			}
		}

		kc := kubeconfigOf(t, e.Config, fixtures.TenantNamespace)
		for golden, pools := range map[string][]string{
			fixtures.Golden:    {"demo-t0", "demo-t1", "demo-t3"},
			fixtures.OldGolden: {"demo-t2"},
		} {
			listed, outcome := consumersOf(t, kc, golden)
			assert.Empty(t, outcome, "the admin reads every kind")
			for _, p := range pools {
				assert.Contains(t, listed, "KubernetesNodes "+fixtures.TenantNamespace+"/"+p, "a pool whose values clone %s is its consumer", golden)
			}
			assert.NotContains(t, listed, "KubernetesNodes "+fixtures.TenantNamespace+"/demo-t4", "the HTTP pool clones nothing")
		}
		safe, outcome := pruneOf(t, kc)
		assert.Empty(t, outcome)
		assert.NotContains(t, safe, fixtures.OldGolden, "the retired golden a pool names is kept")
		assert.NotContains(t, safe, fixtures.Golden)
	})

	t.Run("partial RBAC", func(t *testing.T) {
		read := []string{"get", "list", "watch"}
		cfg := e.User(t, "truth-partial",
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"persistentvolumes", "configmaps", "secrets", "namespaces"}, Verbs: read},
			rbacv1.PolicyRule{APIGroups: []string{"storage.k8s.io"}, Resources: []string{"csidrivers"}, Verbs: read},
			rbacv1.PolicyRule{APIGroups: []string{"cdi.kubevirt.io", "snapshot.storage.k8s.io", "kubevirt.io", "infrastructure.cluster.x-k8s.io",
				"apps.cozystack.io", "helm.toolkit.fluxcd.io"}, Resources: []string{"*"}, Verbs: read},
			rbacv1.PolicyRule{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews"}, Verbs: []string{"create"}},
			rbacv1.PolicyRule{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		)
		// The admin's run recorded its Events on the same pools.
		require.NoError(t, e.Client.DeleteAllOf(ctx, &eventsv1.Event{}, client.InNamespace(fixtures.TenantNamespace)))
		got := surfaces(t, cfg, "failed")
		for _, name := range names {
			assert.Equal(t, "failed", got[name]["webhook"].Outcome, "the webhook denies every admission until it may read what it judges by")
			if name == "demo-t4" {
				continue
			}
			for surface, v := range got[name] {
				assert.NotEqual(t, "planned", v.Outcome, "%s on %s: a plan that could not read StorageClasses and PVCs passed", surface, name)
			}
		}
		for _, surface := range []string{"plan", "diff", "controller"} {
			assert.Equal(t, "unverified", got["demo-t0"][surface].Outcome, "%s on demo-t0", surface)
		}
		for _, surface := range []string{"helm-verify", "helm 3"} {
			assert.Equal(t, surfaceVerdict{Outcome: "refused", Reasons: []string{"StateUnverified"}}, got["demo-t0"][surface],
				"%s: helm-verify is strict, it refuses what it could not check", surface)
		}
		// Just clear of it: the HTTP path reads neither kind, and every
		// surface but the webhook (which judges nothing it cannot read
		// whole) plans it.
		for _, surface := range []string{"plan", "diff", "controller", "helm-verify", "helm 3"} {
			assert.Equal(t, "planned", got["demo-t4"][surface].Outcome, "%s on the HTTP pool", surface)
		}

		kc := kubeconfigOf(t, cfg, fixtures.TenantNamespace)
		code, _, stderr := run(t, "", "plan", "kubernetesnodes/demo-t0", "-n", fixtures.TenantNamespace, "--kubeconfig", kc)
		assert.Equal(t, 4, code)
		denial := review(t, v, kubernetesNodes(fixtures.TenantNamespace, "demo-t0", truthPools["demo-t0"])).Result.Message
		for _, kind := range []string{"storageclasses", "persistentvolumeclaims"} {
			assert.Contains(t, stderr, "cannot list "+kind, "one plan run names every missing grant")
			assert.Contains(t, denial, kind, "and so does one denial")
		}
		_, outcome := consumersOf(t, kc, fixtures.Golden)
		assert.Equal(t, "unverified", outcome, "PVCs unread may hide a consumer")
		safe, outcome := pruneOf(t, kc)
		assert.Equal(t, "unverified", outcome)
		assert.Empty(t, safe, "nothing is safe to delete")
	})
}
