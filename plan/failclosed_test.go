package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// TestPoolNamesAreKubernetesNames: a pool's namespace is a DNS-1123 label
// and its name a DNS-1123 subdomain, as Kubernetes admits them, or the
// pool is refused InvalidPoolName: names reach the disk's
// pool annotation, the chart text's "# <namespace>/<name>" line and
// terminals.
func TestPoolNamesAreKubernetesNames(t *testing.T) {
	cases := map[string]struct {
		reason          string
		namespace, name string
		want            []fixtures.Finding
	}{
		"valid":            {"neighbour: a tenant namespace and <cluster>-<pool>", "tenant-demo", "demo-md0", nil},
		"uppercase":        {"uppercase is not a DNS-1123 subdomain", "tenant-demo", "demo-MD0", []fixtures.Finding{{Reason: guard.InvalidPoolName, Field: "metadata.name"}}},
		"path and query":   {"a name with a path and a query is refused before it reaches an annotation", "tenant-demo", "demo-md0 ../../x?#@", []fixtures.Finding{{Reason: guard.InvalidPoolName, Field: "metadata.name"}}},
		"newline":          {"a newline would break the chart text's header line", "tenant-demo", "demo-md0\n      - metadata:", []fixtures.Finding{{Reason: guard.InvalidPoolName, Field: "metadata.name"}}},
		"dotted name":      {"neighbour: a subdomain may hold dots", "tenant-demo", "demo-md0.a", nil},
		"no namespace":     {"a pool always has a namespace", "", "demo-md0", []fixtures.Finding{{Reason: guard.InvalidPoolName, Field: "metadata.namespace"}}},
		"dotted namespace": {"a namespace is a label: no dots", "tenant.demo", "demo-md0", []fixtures.Finding{{Reason: guard.InvalidPoolName, Field: "metadata.namespace"}}},
		"escape":           {"an escape sequence never reaches a terminal as a name", "tenant-demo", "demo-md0\x1b[2K", []fixtures.Finding{{Reason: guard.InvalidPoolName, Field: "metadata.name"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := plan.Pool{Namespace: tc.namespace, Name: tc.name, Spec: plan.DefaultPoolSpec("demo")}
			_, err := plan.Plan(p, nil, nil)
			assert.Equal(t, tc.want, fixtures.Refused(err), tc.reason)
		})
	}
}

// TestTalosValuesOnTheHTTPPath: without osImage the pool renders what the
// pre-feature chart rendered, its talos values as given, and warns of each
// that fails its pattern, at its talos.* field;
// with osImage.factory every value the URL is built from, its own or
// falling back to talos.*, is refused at the field it came from.
func TestTalosValuesOnTheHTTPPath(t *testing.T) {
	evil := "../../../evil.example/x?y="
	cases := map[string]struct {
		reason   string
		values   map[string]any
		warnings []fixtures.Finding
		refusals []fixtures.Finding
		url      string
	}{
		"defaults": {
			reason: "neighbour: the chart's defaults warn of nothing",
			values: map[string]any{"cluster": "demo"},
			url:    "https://factory.talos.dev/image/" + chartdefaults.SchematicID + "/" + chartdefaults.Version + "/openstack-amd64.raw.xz",
		},
		"version with a newline": {
			reason:   "rendered as given, as the chart renders it, with a warning",
			values:   map[string]any{"cluster": "demo", "talos": map[string]any{"version": "v1\n  evil: 1"}},
			warnings: []fixtures.Finding{{Reason: guard.InvalidVersion, Field: "talos.version"}},
			url:      "https://factory.talos.dev/image/" + chartdefaults.SchematicID + "/v1\n  evil: 1/openstack-amd64.raw.xz",
		},
		"schematic ID with a path": {
			reason:   "rendered as given, with a warning",
			values:   map[string]any{"cluster": "demo", "talos": map[string]any{"schematicID": evil}},
			warnings: []fixtures.Finding{{Reason: guard.InvalidSchematicID, Field: "talos.schematicID"}},
			url:      "https://factory.talos.dev/image/" + evil + "/" + chartdefaults.Version + "/openstack-amd64.raw.xz",
		},
		"factory URL with a query": {
			reason:   "rendered as given, with a warning",
			values:   map[string]any{"cluster": "demo", "talos": map[string]any{"imageFactoryURL": "https://mirror.example?x=1"}},
			warnings: []fixtures.Finding{{Reason: guard.InvalidImageFactoryURL, Field: "talos.imageFactoryURL"}},
			url:      "https://mirror.example?x=1/image/" + chartdefaults.SchematicID + "/" + chartdefaults.Version + "/openstack-amd64.raw.xz",
		},
		"factory override falling back to an invalid talos value": {
			reason: "osImage.factory builds its URL from talos.schematicID: refused at the field it came from",
			values: map[string]any{"cluster": "demo", "talos": map[string]any{"schematicID": evil},
				"osImage": map[string]any{"factory": map[string]any{"imageFactoryURL": "https://mirror.example"}}},
			refusals: []fixtures.Finding{{Reason: guard.InvalidSchematicID, Field: "talos.schematicID"}},
		},
		"factory override of its own": {
			reason: "its own invalid value is refused at its own field",
			values: map[string]any{"cluster": "demo",
				"osImage": map[string]any{"factory": map[string]any{"version": "1.13.6"}}},
			refusals: []fixtures.Finding{{Reason: guard.InvalidVersion, Field: "osImage.factory.version"}},
		},
		"factory override, valid": {
			reason: "neighbour: a valid override over valid defaults plans",
			values: map[string]any{"cluster": "demo",
				"osImage": map[string]any{"factory": map[string]any{"imageFactoryURL": "https://mirror.example/", "version": "v1.12.0"}}},
			url: "https://mirror.example/image/" + chartdefaults.SchematicID + "/v1.12.0/openstack-amd64.raw.xz",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := plan.Plan(plan.DecodePool("tenant-demo", "demo-md0", tc.values), nil, nil)
			assert.Equal(t, tc.refusals, fixtures.Refused(err), tc.reason)
			assert.Equal(t, tc.warnings, fixtures.Warned(res.Warnings), tc.reason)
			if tc.url != "" {
				assert.Equal(t, tc.url, res.Disk.Spec.Source.HTTP.URL, tc.reason)
			}
		})
	}
}
