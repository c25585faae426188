package renderer

import (
	"strings"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// indent is the indentation of the dataVolumeTemplates key, and of its
// "- metadata:" entries, inside the kubernetes-nodes chart's
// KubevirtMachineTemplate: the chart writes a sequence at its key's
// indentation, the one helm.PlanEntry writes the entry at.
const indent = helm.ChartIndent

// Renderer writes the dataVolumeTemplates of pools' KubevirtMachineTemplates
// against one catalog and one snapshot of the cluster. A nil Catalog is the
// disabled catalog; a nil State leaves every kind unknown, so the guards that
// need one warn StateUnverified. It is safe for concurrent use.
type Renderer struct {
	Catalog *catalog.Catalog
	State   *state.Snapshot
}

// DataVolumeTemplates writes the dataVolumeTemplates block of the
// KubernetesNodes namespace/name whose spec is values: the
// "dataVolumeTemplates:" line and the disk-system entry's "- metadata:"
// line both indented by 6 spaces (helm.ChartIndent), each line ending in "\n".
//
// For a refused pool it returns no text and the refusals as one error
// (guard.InvalidValue at the values path for a value of the wrong type).
// The warnings let the text stand.
func (r Renderer) DataVolumeTemplates(namespace, name string, values map[string]any) (string, guard.Warnings, error) {
	e, err := helm.PlanEntry(plan.DecodePool(namespace, name, values), r.Catalog, r.State)
	if err != nil {
		return "", e.Warnings, err
	}
	return strings.Repeat(" ", indent) + "dataVolumeTemplates:\n" + e.Text, e.Warnings, nil
}
