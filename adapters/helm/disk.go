package helm

import (
	"errors"
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// ChartIndent is the indentation of the disk-system entry's "- metadata:"
// line inside the kubernetes-nodes chart's KubevirtMachineTemplate
// template.
const ChartIndent = 6

// ErrRefused is DiskText's error for a refused plan: a refused pool has no
// disk to render.
var ErrRefused = errors.New("the pool is refused, so it has no disk to render")

// DiskText writes a planned pool's disk-system dataVolumeTemplates entry as
// the kubernetes-nodes chart renders it, its "- metadata:" line indented by
// indent spaces (ChartIndent inside the chart; at most 1024, a deeper one
// an error as a negative one is), each line ending in "\n".
//
// On the HTTP path the text is byte for byte the pre-feature chart's, the
// text of its kubevirtmachinetemplate define that names the
// KubevirtMachineTemplate by its hash: the usePopulator annotation; the URL
// printed as it is; `diskSize | default "20Gi" | quote`, the size as the
// decoder read it (a number as Helm prints its float64) through Helm's
// quote, Go's %q; `with storageClass` then quote, the storageClassName line
// left out when the class is empty. In the manifest Helm writes, the lines
// carry 4 more spaces (nindent 4), and Helm removes the characters
// "<no value>" from it after hashing; a value holding them is written
// without them. On the clone path it is the same layout with the golden and
// pool annotations, quoted, and the golden's pvc source. It is for a caller
// that already holds a plan.Result (the CLI's -o chart); a renderer that
// needs only the text calls PlanEntry, which never builds the DataVolume
// object.
func DiskText(r plan.Result, indent int) (string, error) {
	if r.Outcome != plan.Planned {
		return "", ErrRefused
	}
	if indent < 0 || indent > charttext.MaxIndent {
		return "", fmt.Errorf("indentation %d is outside 0 to %d", indent, charttext.MaxIndent)
	}
	d, err := charttext.DiskOf(r.Disk.Name, r.Disk.Annotations, &r.Disk.Spec, r.DiskSize, r.Source == plan.Clone)
	if err != nil || (r.Source != plan.Clone && r.Source != plan.HTTP) {
		return "", fmt.Errorf("the plan's source %q does not match its disk's source", r.Source)
	}
	return charttext.DiskText(&d, indent), nil
}
