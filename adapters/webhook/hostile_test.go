package webhook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/internal/escape"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// serveReview sends body to the webhook at path as the server does, and
// reads the answer.
func serveReview(t testing.TB, path string, body []byte) (int, admissionv1.AdmissionReview) {
	t.Helper()
	v := validator(cluster()...)
	hook := v.Pools()
	if strings.Contains(path, "helmreleases") {
		hook = v.Releases()
	}
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	hook.ServeHTTP(rec, req)
	var ar admissionv1.AdmissionReview
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &ar), "%s", rec.Body.String())
	require.NotNil(t, ar.Response, "%s", rec.Body.String())
	return rec.Code, ar
}

// A review the webhook cannot judge is a bad request, never admitted on a
// guess: no request, no uid, an operation the API has not, another kind.
func TestBadReviews(t *testing.T) {
	obj, err := json.Marshal(pool(fixtures.TenantNamespace, fixtures.PoolName, builtin(nil)))
	require.NoError(t, err)
	review := func(op, group, kind string) string {
		return fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":%q,"kind":{"group":%q,"version":"v1alpha1","kind":%q},"namespace":"tenant-demo","name":"demo-md0","object":%s}}`,
			op, group, kind, obj)
	}
	cases := map[string]struct {
		reason, path, body string
	}{
		"empty object":           {"a review of nothing", PoolsPath, `{}`},
		"null":                   {"not a review", PoolsPath, `null`},
		"empty body":             {"no review at all", PoolsPath, ``},
		"no request":             {"a review without its request", PoolsPath, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`},
		"null request":           {"a request that is null", PoolsPath, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}`},
		"no uid":                 {"a request the answer cannot name", PoolsPath, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}`},
		"lower case":             {"create is not an operation of the API: CREATE is", PoolsPath, review("create", "apps.cozystack.io", "KubernetesNodes")},
		"patch":                  {"PATCH is an HTTP verb, never an admission operation", PoolsPath, review("PATCH", "apps.cozystack.io", "KubernetesNodes")},
		"no operation":           {"an operation left out", PoolsPath, review("", "apps.cozystack.io", "KubernetesNodes")},
		"another kind":           {"a Pod sent to the pools webhook", PoolsPath, review("CREATE", "", "Pod")},
		"pool releases":          {"a KubernetesNodes sent to the HelmRelease webhook", ReleasesPath, review("CREATE", "apps.cozystack.io", "KubernetesNodes")},
		"delete of another kind": {"even a delete is of the webhook's kind", PoolsPath, review("DELETE", "", "Pod")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, ar := serveReview(t, tc.path, []byte(tc.body))
			assert.False(t, ar.Response.Allowed, tc.reason)
			require.NotNil(t, ar.Response.Result, tc.reason)
			assert.Equal(t, int32(http.StatusBadRequest), ar.Response.Result.Code, "%s: %s", tc.reason, ar.Response.Result.Message)
		})
	}
	t.Run("neighbours", func(t *testing.T) {
		_, ar := serveReview(t, PoolsPath, []byte(review("CREATE", "apps.cozystack.io", "KubernetesNodes")))
		assert.True(t, ar.Response.Allowed, "a create of a pool is judged: %+v", ar.Response.Result)
		_, ar = serveReview(t, PoolsPath, []byte(review("DELETE", "apps.cozystack.io", "KubernetesNodes")))
		assert.True(t, ar.Response.Allowed, "a delete of a pool plans nothing: %+v", ar.Response.Result)
	})
}

// PoolsPath and ReleasesPath, as the tests above send them.
const (
	PoolsPath    = "/validate-kubernetesnodes"
	ReleasesPath = "/validate-helmreleases"
)

// An update is "unchanged" only against a release of the same chart: a
// release that becomes a pool's or the catalog's had no disk, nor goldens,
// of that chart before, and is judged as a create.
func TestUpdateThatBecomesAPoolOrTheCatalog(t *testing.T) {
	refused := builtin(map[string]any{"storageClass": fixtures.LocalClass})
	postgres := map[string]any{"kind": "ExternalArtifact", "name": "cozystack-postgres-application-default-postgres", "namespace": "cozy-system"}

	pool := poolRelease("tenant-a", "demo-gpu", refused)
	otherChart := pool.DeepCopy()
	require.NoError(t, unstructured.SetNestedMap(otherChart.Object, postgres, "spec", "chartRef"))
	otherChart.SetLabels(nil)
	unlabelled := otherChart.DeepCopy()
	labelled := otherChart.DeepCopy()
	labelled.SetLabels(pool.GetLabels())
	newVersion := pool.DeepCopy()
	require.NoError(t, unstructured.SetNestedField(newVersion.Object, "2.0.0", "spec", "chartRef", "version"))

	drifted := catalogValues()
	drifted["images"].([]any)[0].(map[string]any)["storage"] = "8Gi"
	cat := catalogRelease(drifted)
	catOtherChart := cat.DeepCopy()
	require.NoError(t, unstructured.SetNestedMap(catOtherChart.Object, postgres, "spec", "chartRef"))

	cases := map[string]struct {
		reason   string
		obj, old *unstructured.Unstructured
		allowed  bool
	}{
		"chart changed":           {"a release of another chart, with the very values, that becomes the kubernetes-nodes chart's has no disk before", pool, otherChart, false},
		"labels changed":          {"a release that gains cozystack-api's labels becomes a pool's", labelled, unlabelled, false},
		"catalog chart changed":   {"the catalog release's name, of another chart before, renders no golden before", cat, catOtherChart, false},
		"same chart, new version": {"neighbour: a new version of the same chart is the same pool, unchanged", newVersion, pool, true},
		"same catalog chart":      {"neighbour: the catalog as it was, still drifted, stays editable", cat, cat, true},
	}
	v := validator(cluster()...)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := answer(v, releaseKind, request(t, admissionv1.Update, releaseKind, tc.obj, tc.old))
			require.Equal(t, tc.allowed, r.Allowed, "%s: %+v %q", tc.reason, r.Result, r.Warnings)
			if !tc.allowed {
				assert.NotEmpty(t, causes(r), tc.reason)
			}
		})
	}
}

// The answer to a pool of many unknown keys, or a catalog of many
// refused entries, is bounded: the first findings and how many more.
func TestBoundedAnswer(t *testing.T) {
	spec := builtin(nil)
	for i := range 1000 {
		spec[fmt.Sprintf("unknown%04d", i)] = i
	}
	r := answer(validator(cluster()...), poolKind, request(t, admissionv1.Create, poolKind, pool(fixtures.TenantNamespace, fixtures.PoolName, spec), nil))
	require.True(t, r.Allowed, "%+v", r.Result)
	require.Len(t, r.Warnings, 17, "the first 16 warnings and one that says how many more")
	last := r.Warnings[len(r.Warnings)-1]
	assert.Contains(t, last, "984 more warnings not shown (of 1000: UnknownField 1000)")
	size := 0
	for _, w := range r.Warnings {
		size += len(w)
	}
	assert.Less(t, size, 17*1024, "each warning is at most 1 KiB")

	images := []any{}
	for i := range 100 {
		images = append(images, map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": fmt.Sprintf("v1.%d", i)})
	}
	r = answer(validator(cluster()...), releaseKind, request(t, admissionv1.Create, releaseKind, catalogRelease(map[string]any{"enabled": true, "images": images}), nil))
	require.False(t, r.Allowed)
	assert.Len(t, r.Result.Details.Causes, 16, "the first 16 refusals are causes")
	assert.Regexp(t, `and \d+ more refusals not shown \(of \d+: InvalidVersion \d+\)`, r.Result.Message)
	assert.Less(t, len(r.Result.Message), 18*1024)

	t.Run("neighbour", func(t *testing.T) {
		spec := builtin(nil)
		for i := range 16 {
			spec[fmt.Sprintf("unknown%04d", i)] = i
		}
		r := answer(validator(cluster()...), poolKind, request(t, admissionv1.Create, poolKind, pool(fixtures.TenantNamespace, fixtures.PoolName, spec), nil))
		assert.Len(t, r.Warnings, 16, "16 warnings are all shown, and nothing says more")
	})
}

// A text that quotes a huge value is cut, and says how much was left out.
func TestLongTextIsCut(t *testing.T) {
	class := strings.Repeat("c", 100_000)
	r := answer(validator(cluster()...), poolKind, request(t, admissionv1.Create, poolKind, pool(fixtures.TenantNamespace, "demo-gpu", builtin(map[string]any{"storageClass": class})), nil))
	require.False(t, r.Allowed)
	for _, c := range r.Result.Details.Causes {
		assert.LessOrEqual(t, len(c.Message), 1024)
		assert.Contains(t, c.Message, "more bytes)")
	}
	assert.Less(t, len(r.Result.Message), 18*1024)
}

// The hostile review: 460,000 unknown keys in 6.9 MB, within the
// request's bound in bytes. It is a bad request that names the bound it
// passes, decided with at most 64 MiB allocated (bytes allocated bound the
// heap it adds), before the planner reads a key.
func TestHostileReview(t *testing.T) {
	body := hostileReview(t, hostileKeys)
	require.Greater(t, len(body), 6_800_000)
	require.Less(t, len(body), 7<<20)
	var added uint64
	var ar admissionv1.AdmissionReview
	allocated(&added, func() { _, ar = serveReview(t, PoolsPath, body) })
	assert.False(t, ar.Response.Allowed)
	assert.Equal(t, int32(http.StatusBadRequest), ar.Response.Result.Code)
	assert.Contains(t, ar.Response.Result.Message, "it holds more than 4096 values")
	assert.Less(t, len(ar.Response.Result.Message)+len(strings.Join(ar.Response.Warnings, "")), 4096, "the answer is small")
	assert.LessOrEqual(t, added, uint64(64<<20), "bytes allocated while judged: %d MiB", added>>20)

	t.Run("neighbour", func(t *testing.T) {
		_, ar := serveReview(t, PoolsPath, hostileReview(t, 4000))
		assert.True(t, ar.Response.Allowed, "4,000 unknown keys are within the bound, warned: %+v", ar.Response.Result)
		assert.Len(t, ar.Response.Warnings, 17)
	})
}

// allocated runs f and adds to n the bytes allocated meanwhile.
func allocated(n *uint64, f func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	*n += after.TotalAlloc - before.TotalAlloc
}

// Characters that reorder or hide text are escaped in denials and in
// warnings, as the command escapes them.
func TestFormatCharactersEscaped(t *testing.T) {
	for _, c := range []string{"\u202e", "\u2028", "\u2029", "\u200e", "\u200f", "\u202a", "\u2066", "\u2069", "\x1b"} {
		spec := builtin(map[string]any{"storageClass": "local" + c + "ssalc", "unknown" + c: 1})
		r := answer(validator(cluster()...), poolKind, request(t, admissionv1.Create, poolKind, pool("tenant-a", "demo-gpu", spec), nil))
		require.False(t, r.Allowed)
		texts := []string{r.Result.Message}
		for _, cs := range r.Result.Details.Causes {
			texts = append(texts, cs.Message, cs.Field)
		}
		texts = append(texts, r.Warnings...)
		for _, text := range texts {
			assert.NotContains(t, text, c, "%U reaches the answer raw: %q", []rune(c)[0], text)
		}
		assert.Contains(t, r.Result.Message, "local"+escape.String(c)+"ssalc", "written as an escape")
		assert.Contains(t, strings.Join(r.Warnings, "\n"), "unknown\\", "the unknown key's warning, escaped")
	}
}

// A diskSize of 2,000,000 digits is refused InvalidValue before it is
// parsed, in a bounded answer, with at most 64 MiB allocated.
func TestLongQuantity(t *testing.T) {
	spec := builtin(map[string]any{"diskSize": strings.Repeat("9", 2_000_000) + "Gi"})
	var added uint64
	var r admissionv1.AdmissionResponse
	allocated(&added, func() {
		r = answer(validator(cluster()...), poolKind, request(t, admissionv1.Create, poolKind, pool(fixtures.TenantNamespace, fixtures.PoolName, spec), nil)).AdmissionResponse
	})
	require.False(t, r.Allowed)
	assert.Contains(t, causes(admission.Response{AdmissionResponse: r}), cause{"InvalidValue", "spec.diskSize"})
	assert.Less(t, len(r.Result.Message), 18*1024)
	assert.LessOrEqual(t, added, uint64(64<<20))
}
