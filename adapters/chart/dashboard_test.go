package chart_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Grafana dashboard the chart ships: a ConfigMap the dashboard sidecar
// loads, whose every query names only metrics the controller and the
// webhook export, and which shows every one of them.
func TestDashboard(t *testing.T) {
	objs, err := render(t, ns, nil)
	require.NoError(t, err)
	cm := find(objs, "ConfigMap", "worker-image-dashboard")
	require.NotNil(t, cm, "the dashboard's ConfigMap")
	assert.Equal(t, "1", cm.GetLabels()["grafana_dashboard"])
	text, _ := cm.Object["data"].(map[string]any)["worker-image.json"].(string)
	var dash struct {
		UID    string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(text), &dash), "the dashboard is JSON:\n%s", text)
	assert.Equal(t, "worker-image", dash.UID)

	exported := exportedMetrics(t)
	metric := regexp.MustCompile(`worker_image_[a-z_]+`)
	shown := map[string]bool{}
	for _, p := range dash.Panels {
		require.NotEmpty(t, p.Targets, p.Title)
		for _, q := range p.Targets {
			for _, m := range metric.FindAllString(q.Expr, -1) {
				name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_sum"), "_count")
				assert.True(t, slices.Contains(exported, name), "panel %q queries %s, which nothing exports", p.Title, m)
				shown[name] = true
			}
		}
	}
	for _, m := range exported {
		assert.True(t, shown[m], "no panel shows %s", m)
	}

	// Just clear of it: without the dashboard, no ConfigMap.
	objs, err = render(t, ns, map[string]any{"monitoring": map[string]any{"grafanaDashboard": false}})
	require.NoError(t, err)
	assert.Nil(t, find(objs, "ConfigMap", "worker-image-dashboard"))
}

// exportedMetrics are the names of the metrics the controller and the
// webhook register, as their sources declare them.
func exportedMetrics(t *testing.T) []string {
	t.Helper()
	var out []string
	decl := regexp.MustCompile(`Name:\s+"(worker_image_[a-z_]+)"`)
	for _, f := range []string{"../controller/metrics.go", "../webhook/metrics.go"} {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			out = append(out, m[1])
		}
	}
	require.Len(t, out, 14, "the metrics of the controller (10) and of the webhook (4): %v", out)
	return out
}
