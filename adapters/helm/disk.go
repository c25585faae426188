package helm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// ChartIndent is the indentation of the disk-system entry's "- metadata:"
// line inside the kubernetes-nodes chart's KubevirtMachineTemplate
// template (SPEC section 3).
const ChartIndent = 6

// ErrRefused is DiskText's error for a refused plan: a refused pool has no
// disk to render.
var ErrRefused = errors.New("the pool is refused, so it has no disk to render")

// DiskText writes a planned pool's disk-system dataVolumeTemplates entry as
// the kubernetes-nodes chart renders it, its "- metadata:" line indented by
// indent spaces (ChartIndent inside the chart), each line ending in "\n".
//
// On the HTTP path the text is byte for byte the pre-feature chart's: the
// usePopulator annotation, the URL unquoted, the size as the values give it
// and the class through Helm's quote, the storageClassName line left out
// when the class is empty. On the clone path it is the same layout with the
// golden and pool annotations, quoted, and the golden's pvc source.
func DiskText(r plan.Result, indent int) (string, error) {
	if r.Outcome != plan.Planned {
		return "", ErrRefused
	}
	if indent < 0 {
		return "", fmt.Errorf("indentation %d is negative", indent)
	}
	d := r.Disk
	src := d.Spec.Source
	w := lines{pad: strings.Repeat(" ", indent)}
	w.line(0, "- metadata:")
	w.line(4, "name: "+d.Name)
	w.line(4, "annotations:")
	switch {
	case r.Source == plan.HTTP && src != nil && src.HTTP != nil:
		w.line(6, naming.UsePopulatorAnnotation+": "+quote(d.Annotations[naming.UsePopulatorAnnotation]))
		w.line(2, "spec:")
		w.line(4, "source:")
		w.line(6, "http:")
		w.line(8, "url: "+src.HTTP.URL)
	case r.Source == plan.Clone && src != nil && src.PVC != nil:
		w.line(6, naming.GoldenAnnotation+": "+quote(d.Annotations[naming.GoldenAnnotation]))
		w.line(6, naming.PoolAnnotation+": "+quote(d.Annotations[naming.PoolAnnotation]))
		w.line(2, "spec:")
		w.line(4, "source:")
		w.line(6, "pvc:")
		w.line(8, "namespace: "+src.PVC.Namespace)
		w.line(8, "name: "+src.PVC.Name)
	default:
		return "", fmt.Errorf("the plan's source %q does not match its disk's source", r.Source)
	}
	w.line(4, "storage:")
	w.line(6, "resources:")
	w.line(8, "requests:")
	w.line(10, "storage: "+quote(r.DiskSize))
	if st := d.Spec.Storage; st != nil && st.StorageClassName != nil && *st.StorageClassName != "" {
		w.line(6, "storageClassName: "+quote(*st.StorageClassName))
	}
	return w.String(), nil
}

// quote is Helm's quote (sprig's): Go's %q of the string.
func quote(s string) string { return fmt.Sprintf("%q", s) }

// lines builds indented YAML text.
type lines struct {
	strings.Builder
	pad string
}

func (w *lines) line(indent int, s string) {
	w.WriteString(w.pad)
	w.WriteString(strings.Repeat(" ", indent))
	w.WriteString(s)
	w.WriteByte('\n')
}
