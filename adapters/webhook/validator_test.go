package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

func TestPools(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    any
		// allowed, or the status code of the denial, and its causes.
		allowed bool
		code    int32
		causes  []cause
		// warnings hold these texts, one each, in order.
		warnings []string
	}{
		"http": {
			reason:  "a pool without osImage imports over HTTP, as before the catalog: nothing to say",
			obj:     pool("tenant-a", "demo-md0", map[string]any{"cluster": "demo"}),
			allowed: true,
		},
		"clone": {
			reason:  "a pool that clones the imported golden on its class is admitted",
			obj:     pool("tenant-a", "demo-md0", builtin(nil)),
			allowed: true,
		},
		"wrong class": {
			reason: "a clone on another class than the golden's is refused at spec.storageClass",
			obj:    pool("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass})),
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"StorageClassMismatch", "spec.storageClass"}},
		},
		"pending": {
			reason:   "a golden still importing admits the pool with GoldenPending",
			obj:      pool("tenant-a", "demo-md1", builtin(map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": PendingVersion}}})),
			allowed:  true,
			warnings: []string{"spec.osImage.builtin: ", "(GoldenPending)"},
		},
		"unreadable": {
			reason: "a value the chart cannot read is the planner's InvalidValue, at its field",
			obj:    pool("tenant-a", "demo-md0", builtin(map[string]any{"diskSize": map[string]any{"size": "20Gi"}})),
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"InvalidValue", "spec.diskSize"}},
		},
		"spec null": {
			reason: "a null spec is the chart's defaults, which name no cluster",
			obj:    pool("tenant-a", "demo-md0", nil),
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"InvalidPoolName", "spec.cluster"}},
		},
		"spec a string": {
			reason: "a spec that is a string is InvalidValue at spec, and the pool has no cluster",
			obj:    pool("tenant-a", "demo-md0", nil),
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"InvalidPoolName", "spec.cluster"}},
		},
		"name": {
			reason: "a name that is not <cluster>-<pool> is refused at metadata.name",
			obj:    pool("tenant-a", "md0", builtin(nil)),
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"InvalidPoolName", "metadata.name"}},
		},
		"misspelled": {
			reason:   "a key the chart does not define is an UnknownField warning",
			obj:      pool("tenant-a", "demo-md0", builtin(map[string]any{"diskSise": "30Gi"})),
			allowed:  true,
			warnings: []string{"spec.diskSise: ", "(UnknownField)"},
		},
		"untyped": {
			reason:  "an object without apiVersion and kind is the request's kind",
			obj:     map[string]any{"metadata": map[string]any{"namespace": "tenant-a", "name": "demo-md0"}, "spec": builtin(nil)},
			allowed: true,
		},
		"not a pool": {
			reason: "another kind sent to the pools' path is a bad request that says what it expects",
			obj:    map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}},
			code:   http.StatusBadRequest,
		},
		"not JSON": {
			reason: "an object that is not JSON is a bad request",
			obj:    []byte("{not json"),
			code:   http.StatusBadRequest,
		},
		"null": {
			reason: "a null object is a bad request",
			obj:    []byte("null"),
			code:   http.StatusBadRequest,
		},
	}
	// A spec that is a string, not a map.
	spec := pool("tenant-a", "demo-md0", nil)
	spec["spec"] = "cluster: demo"
	c := cases["spec a string"]
	c.obj, c.causes = spec, []cause{{"InvalidValue", "spec"}, {"InvalidPoolName", "spec.cluster"}}
	cases["spec a string"] = c

	v := validator(cluster()...)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := answer(v, poolKind, request(t, admissionv1.Create, poolKind, tc.obj, nil))
			assert.Equal(t, "uid", string(r.UID), "the response answers the request")
			require.Equal(t, tc.allowed, r.Allowed, "%s: %+v", tc.reason, r.Result)
			if !tc.allowed {
				assert.Equal(t, tc.code, r.Result.Code, tc.reason)
				assert.Equal(t, tc.causes, causes(r), tc.reason)
				assert.NotEmpty(t, r.Result.Message, tc.reason)
			}
			assertWarnings(t, tc.warnings, r.Warnings, tc.reason)
		})
	}
}

// assertWarnings checks that each text is in some warning, and that there
// are warnings only where texts are expected.
func assertWarnings(t *testing.T, want, got []string, reason string) {
	t.Helper()
	if len(want) == 0 {
		assert.Empty(t, got, reason)
		return
	}
	all := strings.Join(got, "\n")
	for _, w := range want {
		assert.Contains(t, all, w, reason)
	}
}

// The status of a refusal says everything a person needs, in the shape
// the API's own validation uses.
func TestRefusalStatus(t *testing.T) {
	v := validator(cluster()...)
	obj := pool("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
	r := answer(v, poolKind, request(t, admissionv1.Create, poolKind, obj, nil))
	st := r.Result
	require.NotNil(t, st)
	assert.Equal(t, metav1.StatusReasonInvalid, st.Reason)
	assert.Equal(t, metav1.StatusFailure, st.Status)
	assert.Equal(t, "apps.cozystack.io", st.Details.Group)
	assert.Equal(t, "KubernetesNodes", st.Details.Kind)
	assert.Equal(t, "demo-gpu", st.Details.Name)
	assert.True(t, strings.HasPrefix(st.Message, "KubernetesNodes tenant-a/demo-gpu is refused: pool tenant-a/demo-gpu: spec.storageClass: "), st.Message)
	for _, c := range st.Details.Causes {
		assert.True(t, strings.HasSuffix(c.Message, "("+string(c.Type)+")"), c.Message)
		assert.Contains(t, st.Message, strings.TrimSuffix(c.Message, " ("+string(c.Type)+")"), "the message holds every cause")
	}
	assert.Contains(t, st.Details.Causes[0].Message, `"replicated"`, "the refusal names both classes")
}

// An update that leaves the disk as it was is never refused for a state
// it did not change; one that changes the disk is judged as a create.
func TestUnchangedUpdate(t *testing.T) {
	copyStrategy := cdiv1.CloneStrategyHostAssisted
	// The cluster's CDI now copies: every clone is refused HostAssistedClone.
	var objs []client.Object
	for _, o := range cluster() {
		if _, isCDI := o.(*cdiv1.CDI); !isCDI {
			objs = append(objs, o)
		}
	}
	v := validator(append(objs, fixtures.CDI(&copyStrategy))...)
	running := pool(fixtures.TenantNamespace, fixtures.PoolName, builtin(map[string]any{"maxReplicas": 3}))

	t.Run("create is refused", func(t *testing.T) {
		r := answer(v, poolKind, request(t, admissionv1.Create, poolKind, running, nil))
		require.False(t, r.Allowed)
		assert.Equal(t, []cause{{"HostAssistedClone", "spec.storageClass"}}, causes(r))
	})
	cases := map[string]struct {
		reason  string
		edit    map[string]any
		allowed bool
	}{
		"replicas": {"more replicas leave the disk as it was: admitted", map[string]any{"maxReplicas": 5}, true},
		"same flavor spelled out": {"naming the flavor talos already gives writes the same disk: admitted",
			map[string]any{"maxReplicas": 5, "osImage": map[string]any{"builtin": map[string]any{"version": fixtures.DefaultVersion}}}, true},
		"installer": {"the installer repository is not the disk's: admitted",
			map[string]any{"talos": map[string]any{"installerRepository": "mirror.example.com/installer"}}, true},
		"disk size": {"a larger disk is a new disk, refused as a create would be", map[string]any{"diskSize": "30Gi"}, false},
		"class":     {"another class is a new disk, refused", map[string]any{"storageClass": fixtures.LocalClass}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := answer(v, poolKind, request(t, admissionv1.Update, poolKind, pool(fixtures.TenantNamespace, fixtures.PoolName, builtin(tc.edit)), running))
			require.Equal(t, tc.allowed, r.Allowed, "%s: %+v", tc.reason, r.Result)
			if tc.allowed {
				require.NotEmpty(t, r.Warnings, tc.reason)
				assert.Contains(t, strings.Join(r.Warnings, "\n"), "still refused, admitted because this update leaves the pool's disk-system as it was", tc.reason)
				assert.Contains(t, strings.Join(r.Warnings, "\n"), "(HostAssistedClone)", tc.reason)
			}
		})
	}
	t.Run("old object unreadable", func(t *testing.T) {
		r := answer(v, poolKind, request(t, admissionv1.Update, poolKind, running, []byte("{")))
		assert.False(t, r.Allowed, "without the old object, nothing proves the disk unchanged")
	})
}

func TestCatalogSource(t *testing.T) {
	obj := pool("tenant-a", "demo-md0", builtin(nil))
	t.Run("no release", func(t *testing.T) {
		v := validator(fixtures.Cluster()...)
		r := answer(v, poolKind, request(t, admissionv1.Create, poolKind, obj, nil))
		require.False(t, r.Allowed)
		assert.Equal(t, []cause{{"GoldenNotInCatalog", "spec.osImage.builtin"}}, causes(r))
		assert.Contains(t, strings.Join(r.Warnings, "\n"), "the catalog's HelmRelease cozy-system/kubernetes-worker-image does not exist")
	})
	t.Run("release", func(t *testing.T) {
		r := answer(validator(cluster()...), poolKind, request(t, admissionv1.Create, poolKind, obj, nil))
		assert.True(t, r.Allowed, "%+v", r.Result)
	})
	t.Run("read back", func(t *testing.T) {
		v := webhook.New(reader(interceptor.Funcs{}, fixtures.Cluster()...), webhook.Options{})
		r := answer(v, poolKind, request(t, admissionv1.Create, poolKind, obj, nil))
		assert.True(t, r.Allowed, "the golden in cozy-public is the catalog read back: %+v", r.Result)
	})
	t.Run("release unreadable", func(t *testing.T) {
		c := reader(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if key == webhook.DefaultCatalogRelease() {
				return errors.New("the cache is not started")
			}
			return c.Get(ctx, key, obj, opts...)
		}}, cluster()...)
		r := answer(webhook.New(c, webhook.Options{CatalogRelease: webhook.DefaultCatalogRelease()}), poolKind, request(t, admissionv1.Create, poolKind, obj, nil))
		require.False(t, r.Allowed)
		assert.Equal(t, int32(http.StatusInternalServerError), r.Result.Code)
		assert.Equal(t, metav1.StatusReasonInternalError, r.Result.Reason)
		assert.Contains(t, r.Result.Message, "the cache is not started")
	})
	t.Run("state unreadable", func(t *testing.T) {
		c := reader(interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return errors.New("timeout")
		}}, cluster()...)
		r := answer(webhook.New(c, webhook.Options{CatalogRelease: webhook.DefaultCatalogRelease()}), poolKind, request(t, admissionv1.Create, poolKind, obj, nil))
		require.False(t, r.Allowed)
		assert.Equal(t, int32(http.StatusInternalServerError), r.Result.Code)
		assert.Contains(t, r.Result.Message, "nothing is admitted on a guess")
	})
}

// A delete plans nothing.
func TestDelete(t *testing.T) {
	r := answer(validator(cluster()...), poolKind, request(t, admissionv1.Delete, poolKind, nil, nil))
	assert.True(t, r.Allowed)
}

// Text from the object never reaches a terminal raw.
func TestEscapes(t *testing.T) {
	obj := pool("tenant-a", "demo-md0", builtin(map[string]any{"storageClass": "evil\x1b[31m\nclass"}))
	r := answer(validator(cluster()...), poolKind, request(t, admissionv1.Create, poolKind, obj, nil))
	require.False(t, r.Allowed)
	assert.NotContains(t, r.Result.Message, "\x1b")
	assert.NotContains(t, r.Result.Message, "\n")
	for _, c := range r.Result.Details.Causes {
		assert.NotContains(t, c.Message, "\x1b")
	}
	for _, w := range r.Warnings {
		assert.NotContains(t, w, "\x1b")
	}
}
