package webhook_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

func TestPoolReleases(t *testing.T) {
	labelsOnly := poolRelease("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
	unstructured.RemoveNestedField(labelsOnly.Object, "spec", "chartRef")
	byChart := poolRelease("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass}))
	byChart.SetLabels(nil)
	repository := release("tenant-a", "kubernetes-nodes-demo-gpu", map[string]any{
		"chart":  map[string]any{"spec": map[string]any{"chart": "kubernetes-nodes", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "cozystack"}}},
		"values": builtin(map[string]any{"storageClass": fixtures.LocalClass}),
	})
	internal := poolRelease("tenant-a", "demo-md0", builtin(map[string]any{"_namespace": map[string]any{"etcd": "tenant-root"}}))
	prefixless := poolRelease("tenant-a", "demo-md0", builtin(nil))
	prefixless.SetName("demo-md0")
	renamed := poolRelease("tenant-a", "demo-md0", builtin(nil))
	unstructured.SetNestedField(renamed.Object, "pool-md0", "spec", "releaseName")
	fromConfigMap := poolRelease("tenant-a", "demo-md0", builtin(nil))
	unstructured.SetNestedSlice(fromConfigMap.Object, []any{map[string]any{"kind": "ConfigMap", "name": "more-values"}}, "spec", "valuesFrom")

	cases := map[string]struct {
		reason   string
		obj      any
		allowed  bool
		code     int32
		causes   []cause
		warnings []string
	}{
		"refused": {
			reason: "the release cozystack-api makes for a refused pool is refused at spec.values",
			obj:    poolRelease("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass})),
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"StorageClassMismatch", "spec.values.storageClass"}},
		},
		"labels": {
			reason: "cozystack-api's labels alone make it a pool's release",
			obj:    labelsOnly,
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"StorageClassMismatch", "spec.values.storageClass"}},
		},
		"chartRef": {
			reason: "the chartRef alone makes it a pool's release",
			obj:    byChart,
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"StorageClassMismatch", "spec.values.storageClass"}},
		},
		"repository chart": {
			reason: "a release of the kubernetes-nodes chart from a HelmRepository is a pool's",
			obj:    repository,
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"StorageClassMismatch", "spec.values.storageClass"}},
		},
		"planned": {
			reason:  "a pool that plans is admitted",
			obj:     poolRelease("tenant-a", "demo-md0", builtin(nil)),
			allowed: true,
		},
		"pending": {
			reason:   "its warnings come back",
			obj:      poolRelease("tenant-a", "demo-md1", builtin(map[string]any{"osImage": map[string]any{"builtin": map[string]any{"version": PendingVersion}}})),
			allowed:  true,
			warnings: []string{"spec.values.osImage.builtin: ", "(GoldenPending)"},
		},
		"internal keys": {
			reason:  "the platform's _ keys are not the pool's values (cozystack-api drops them)",
			obj:     internal,
			allowed: true,
		},
		"no prefix": {
			reason: "a release name without kubernetes-nodes- names no pool: the chart refuses it",
			obj:    prefixless,
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"InvalidPoolName", "metadata.name"}},
		},
		"release name": {
			reason: "spec.releaseName is the release's name",
			obj:    renamed,
			code:   http.StatusUnprocessableEntity,
			causes: []cause{{"InvalidPoolName", "spec.releaseName"}, {"InvalidPoolName", "metadata.name"}},
		},
		"values from": {
			reason:   "values from a ConfigMap are not checked, and the webhook says so",
			obj:      fromConfigMap,
			allowed:  true,
			warnings: []string{"values from ConfigMap more-values were not checked"},
		},
		"other chart": {
			reason:  "a release of another chart is admitted untouched",
			obj:     release("tenant-a", "postgres", map[string]any{"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "postgres"}, "values": map[string]any{"storageClass": 3}}),
			allowed: true,
		},
		"not a release": {
			reason: "another kind sent to the releases' path is a bad request",
			obj:    pool("tenant-a", "demo-md0", builtin(nil)),
			code:   http.StatusBadRequest,
		},
	}
	v := validator(cluster()...)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := answer(v, releaseKind, request(t, admissionv1.Create, releaseKind, tc.obj, nil))
			require.Equal(t, tc.allowed, r.Allowed, "%s: %+v", tc.reason, r.Result)
			if !tc.allowed {
				assert.Equal(t, tc.code, r.Result.Code, tc.reason)
				assert.Equal(t, tc.causes, causes(r), tc.reason)
			}
			assertWarnings(t, tc.warnings, r.Warnings, tc.reason)
		})
	}
}

func TestCatalogRelease(t *testing.T) {
	edited := catalogValues()
	edited["images"].([]any)[0].(map[string]any)["storage"] = "8Gi"
	duplicate := catalogValues()
	duplicate["images"] = append(duplicate["images"].([]any), duplicate["images"].([]any)[0])
	added := catalogValues()
	added["images"] = append(added["images"].([]any), map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": "v1.14.0"})
	equal := catalogValues()
	equal["storage"] = "6144Mi"
	misspelled := catalogValues()
	misspelled["enable"] = true
	other := release("cozy-other", "worker-images", map[string]any{
		"chart":  map[string]any{"spec": map[string]any{"chart": "kubernetes-worker-image"}},
		"values": edited,
	})

	cases := map[string]struct {
		reason   string
		obj      any
		allowed  bool
		causes   []cause
		warnings []string
	}{
		"as it is": {
			reason:  "the catalog as its goldens are is admitted",
			obj:     catalogRelease(catalogValues()),
			allowed: true,
		},
		"added": {
			reason:  "a new flavor is admitted",
			obj:     catalogRelease(added),
			allowed: true,
		},
		"same size": {
			reason:  "6144Mi is the golden's 6Gi: no edit",
			obj:     catalogRelease(equal),
			allowed: true,
		},
		"edit": {
			reason: "an edit of a live golden's size is refused at its entry's field",
			obj:    catalogRelease(edited),
			causes: []cause{{"CatalogEntryImmutable", "spec.values.images[0].storage"}},
		},
		"duplicate": {
			reason: "two entries of one flavor are refused at the later",
			obj:    catalogRelease(duplicate),
			causes: []cause{{"DuplicateCatalogEntry", "spec.values.images[2]"}},
		},
		"misspelled": {
			reason:   "a key the chart does not define is a warning",
			obj:      catalogRelease(misspelled),
			allowed:  true,
			warnings: []string{"spec.values.enable: ", "(UnknownField)"},
		},
		"by chart": {
			reason: "a release of the catalog chart elsewhere is rendered as a catalog too",
			obj:    other,
			causes: []cause{{"CatalogEntryImmutable", "spec.values.images[0].storage"}},
		},
	}
	v := validator(cluster()...)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := answer(v, releaseKind, request(t, admissionv1.Create, releaseKind, tc.obj, nil))
			require.Equal(t, tc.allowed, r.Allowed, "%s: %+v", tc.reason, r.Result)
			if !tc.allowed {
				assert.Equal(t, int32(http.StatusUnprocessableEntity), r.Result.Code, tc.reason)
				assert.Equal(t, tc.causes, causes(r), tc.reason)
			}
			assertWarnings(t, tc.warnings, r.Warnings, tc.reason)
		})
	}
}

// A catalog whose golden was changed behind its back (its entry refused
// CatalogEntryImmutable before the update and after) stays editable for
// everything else; an update that adds its own refusal is refused.
func TestCatalogUnchangedUpdate(t *testing.T) {
	drifted := catalogValues()
	drifted["images"].([]any)[0].(map[string]any)["storage"] = "8Gi"
	v := validator(cluster()...)

	moved := catalogValues()
	moved["images"] = []any{
		map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": "v1.14.0"},
		map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": fixtures.DefaultVersion, "storage": "8Gi"},
		map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": PendingVersion},
	}
	worse := catalogValues()
	worse["images"] = append(append([]any{}, drifted["images"].([]any)...), drifted["images"].([]any)[1])
	edited := catalogValues()
	edited["images"].([]any)[0].(map[string]any)["storage"] = "10Gi"

	cases := map[string]struct {
		reason  string
		values  map[string]any
		allowed bool
	}{
		"entry moved":  {"a flavor added before the refused entry moves it, and changes nothing of it", moved, true},
		"edited again": {"the refused entry edited is a new edit: refused", edited, false},
		"own refusal":  {"a refusal of the values themselves is never a state the update did not change", worse, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := answer(v, releaseKind, request(t, admissionv1.Update, releaseKind, catalogRelease(tc.values), catalogRelease(drifted)))
			require.Equal(t, tc.allowed, r.Allowed, "%s: %+v", tc.reason, r.Result)
			if tc.allowed {
				assert.Contains(t, strings.Join(r.Warnings, "\n"), "still refused, admitted because this update leaves the goldens they are about as they were")
				assert.Contains(t, strings.Join(r.Warnings, "\n"), "spec.values.images[1].storage")
			}
		})
	}
}
