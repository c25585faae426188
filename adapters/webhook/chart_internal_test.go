package webhook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
	"github.com/cozystack/kubernetes-worker-image/internal/chartrender"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// The chart's webhook configuration sends the webhook exactly what it
// judges: each webhook at the path the Validator serves, the resources
// of the kinds it decodes, and the HelmReleases of the charts it
// recognises, by matchConditions that are matches and the labels
// cozystack-api sets, written in CEL.
func TestChartSendsWhatTheValidatorJudges(t *testing.T) {
	for name, release := range map[string]map[string]any{
		"the catalog release":     nil,
		"the catalog read back":   {"name": ""},
		"another catalog release": {"namespace": "cozy-images", "name": "catalog"},
	} {
		t.Run(name, func(t *testing.T) {
			objs, err := chartrender.Render(chart.Files(), chartrender.Release{Name: "worker-image", Namespace: "cozy-worker-image", Service: "Helm"},
				map[string]any{"catalogRelease": release})
			require.NoError(t, err)
			var cfg admissionregistrationv1.ValidatingWebhookConfiguration
			for _, o := range objs {
				if o.GetKind() == "ValidatingWebhookConfiguration" {
					require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &cfg))
				}
			}
			o := Options{CatalogRelease: DefaultCatalogRelease()}
			if release != nil {
				o.CatalogRelease.Name = release["name"].(string)
				if ns, ok := release["namespace"].(string); ok {
					o.CatalogRelease.Namespace = ns
				}
			}

			type hook struct{ path, group, version, resource, condition string }
			got := map[string]hook{}
			for _, h := range cfg.Webhooks {
				require.Len(t, h.Rules, 1, h.Name)
				r := h.Rules[0]
				got[h.Name] = hook{path: *h.ClientConfig.Service.Path, group: r.APIGroups[0], version: r.APIVersions[0], resource: r.Resources[0]}
				if len(h.MatchConditions) > 0 {
					require.Len(t, h.MatchConditions, 1, h.Name)
					v := got[h.Name]
					v.condition = h.MatchConditions[0].Expression
					got[h.Name] = v
				}
			}
			catalog := chartConditions(catalogChart)
			if key := o.CatalogRelease; key.Name != "" {
				catalog = append(catalog, fmt.Sprintf("request.namespace == %q && request.name == %q", key.Namespace, key.Name))
			}
			hr := helmReleaseGVK
			assert.Equal(t, map[string]hook{
				"kubernetesnodes.worker-image.cozystack.io": {path: PoolsPath, group: poolGVK.Group, version: poolGVK.Version, resource: "kubernetesnodeses"},
				"pools.helmreleases.worker-image.cozystack.io": {path: ReleasesPath, group: hr.Group, version: hr.Version, resource: "helmreleases",
					condition: anyOf(append(chartConditions(poolrelease.Pools), poolLabelCondition())...)},
				"catalog.helmreleases.worker-image.cozystack.io": {path: ReleasesPath, group: hr.Group, version: hr.Version, resource: "helmreleases",
					condition: anyOf(catalog...)},
				"vmdisks.worker-image.cozystack.io": {path: VMDisksPath, group: vmDiskGK.Group, version: "v1alpha1", resource: "vmdisks"},
				"vmdisks.helmreleases.worker-image.cozystack.io": {path: ReleasesPath, group: hr.Group, version: hr.Version, resource: "helmreleases",
					condition: fmt.Sprintf("object.metadata.name.startsWith(%q) && has(object.metadata.labels) && %[2]q in object.metadata.labels && object.metadata.labels[%[2]q] == %[3]q && "+
						"%[4]q in object.metadata.labels && object.metadata.labels[%[4]q] == %[5]q",
						vmDiskReleasePrefix, applicationKindLabel, vmDiskGK.Kind, applicationGroupLabel, vmDiskGK.Group)},
			}, got)
			for _, h := range cfg.Webhooks {
				assert.Equal(t, DisableLabel, h.NamespaceSelector.MatchExpressions[len(h.NamespaceSelector.MatchExpressions)-1].Key, h.Name)
			}
		})
	}
}

// chartConditions are CEL conditions that hold for a HelmRelease of chart
// c, as matches decides.
func chartConditions(c poolrelease.Chart) []string {
	var out []string
	if c.RefName != "" {
		out = append(out, fmt.Sprintf("has(object.spec.chartRef) && object.spec.chartRef.kind == %q && object.spec.chartRef.name == %q && "+
			"(has(object.spec.chartRef.namespace) && object.spec.chartRef.namespace != '' ? object.spec.chartRef.namespace : object.metadata.namespace) == %q",
			c.RefKind, c.RefName, c.RefNamespace))
	}
	if c.Name != "" {
		out = append(out, fmt.Sprintf("has(object.spec.chart) && has(object.spec.chart.spec) && has(object.spec.chart.spec.chart) && object.spec.chart.spec.chart == %q", c.Name))
	}
	return out
}

// poolLabelCondition holds for a HelmRelease cozystack-api made for a
// KubernetesNodes.
func poolLabelCondition() string {
	return fmt.Sprintf("has(object.metadata.labels) && %[1]q in object.metadata.labels && object.metadata.labels[%[1]q] == %[2]q && "+
		"%[3]q in object.metadata.labels && object.metadata.labels[%[3]q] == %[4]q",
		applicationKindLabel, plan.PoolKind, applicationGroupLabel, poolGVK.Group)
}

func anyOf(conditions ...string) string {
	return "(" + strings.Join(conditions, ") || (") + ")"
}
