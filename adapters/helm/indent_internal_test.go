package helm

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
)

// TestChartIndentIsTheWriters: the indentation the package names is the
// one the text writer lays the chart's entry at.
func TestChartIndentIsTheWriters(t *testing.T) {
	if ChartIndent != charttext.Indent {
		t.Fatalf("ChartIndent is %d, the chart's entry is written at %d", ChartIndent, charttext.Indent)
	}
}
