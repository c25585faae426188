package charttext_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// entries are a disk of each path and its text at the chart's
// indentation (the HTTP path's is the pre-feature chart's).
var entries = map[string]struct {
	disk diskentry.Disk
	text string
}{
	"http": {
		disk: diskentry.Disk{Name: "disk-system", UsePopulator: "false", URL: "https://factory.example/image/ab/v1.13.6/openstack-amd64.raw.xz", Size: "20Gi", Class: "replicated"},
		text: fixtures.PreFeature("https://factory.example/image/ab/v1.13.6/openstack-amd64.raw.xz", "20Gi", "replicated"),
	},
	"http, no class": {
		disk: diskentry.Disk{Name: "disk-system", UsePopulator: "false", URL: "u", Size: "1e3"},
		text: fixtures.PreFeature("u", "1e3", ""),
	},
	"clone, values quote escapes": {
		disk: diskentry.Disk{Name: "disk-system", Clone: true, Golden: "talos-worker-ab-v1.13.6", Pool: "kubernetes-demo-md0",
			PVCNamespace: "cozy-public", PVCName: "talos-worker-ab-v1.13.6", Size: `20"Gi`, Class: "ä\\b"},
		text: `      - metadata:
          name: disk-system
          annotations:
            kubernetes-worker-image.cozystack.io/golden: "talos-worker-ab-v1.13.6"
            kubernetes-worker-image.cozystack.io/pool: "kubernetes-demo-md0"
        spec:
          source:
            pvc:
              namespace: cozy-public
              name: talos-worker-ab-v1.13.6
          storage:
            resources:
              requests:
                storage: "20\"Gi"
            storageClassName: "ä\\b"
`,
	},
}

// TestDiskText: the entry is the chart's layout at any indentation, the
// ones compiled once (below 32) and the deeper ones written line by line
// alike, each in one allocation, one past MaxIndent written at MaxIndent,
// and a value longer than the stack buffer is written whole.
func TestDiskText(t *testing.T) {
	for name, e := range entries {
		for _, indent := range []int{0, 1, 6, 31, 32, 33, 100, charttext.MaxIndent} {
			assert.Equal(t, fixtures.AtIndent(e.text, indent), charttext.DiskText(&e.disk, indent), "%s at %d", name, indent)
			if indent < 100 {
				assert.Equal(t, 1.0, testing.AllocsPerRun(20, func() { charttext.DiskText(&e.disk, indent) }), "%s at %d: one allocation", name, indent)
			}
		}
		assert.Equal(t, charttext.DiskText(&e.disk, charttext.MaxIndent), charttext.DiskText(&e.disk, charttext.MaxIndent+5), "%s past the deepest indentation", name)
	}
	long := entries["http"].disk
	assert.Equal(t, fixtures.AtIndent(entries["http"].text, 0), charttext.DiskText(&long, -1), "a negative indentation is 0")
	long.URL = "https://factory.example/" + strings.Repeat("x", 2000)
	assert.Contains(t, charttext.DiskText(&long, charttext.Indent), "\n              url: "+long.URL+"\n")
	assert.True(t, strings.HasSuffix(charttext.DiskText(&long, charttext.Indent), "storageClassName: \"replicated\"\n"))
}

// TestDiskTextConcurrent: the first writes at an indentation, from many
// goroutines at once, agree (run under -race).
func TestDiskTextConcurrent(t *testing.T) {
	d := entries["http"].disk
	var wg sync.WaitGroup
	got := make([]string, 16)
	for i := range got {
		wg.Go(func() { got[i] = charttext.DiskText(&d, 20+i%4) })
	}
	wg.Wait()
	for i, g := range got {
		assert.Equal(t, fixtures.AtIndent(entries["http"].text, 20+i%4), g)
	}
}
