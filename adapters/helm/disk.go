package helm

import (
	"errors"
	"fmt"
	"strconv"
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
// pool annotations, quoted, and the golden's pvc source.
func DiskText(r plan.Result, indent int) (string, error) {
	if r.Outcome != plan.Planned {
		return "", ErrRefused
	}
	if indent < 0 {
		return "", fmt.Errorf("indentation %d is negative", indent)
	}
	d := r.Disk
	src := d.Spec.Source
	var w lines
	w.pad = indent
	// One allocation: the entry's text is about 560 bytes plus its values
	// and 15 lines of indentation.
	w.Grow(600 + 15*indent + len(d.Name) + len(r.DiskSize))
	w.line(0, "- metadata:")
	w.field(4, "name: ", d.Name)
	w.line(4, "annotations:")
	switch {
	case r.Source == plan.HTTP && src != nil && src.HTTP != nil:
		w.quoted(6, naming.UsePopulatorAnnotation+": ", d.Annotations[naming.UsePopulatorAnnotation])
		w.line(2, "spec:")
		w.line(4, "source:")
		w.line(6, "http:")
		w.field(8, "url: ", src.HTTP.URL)
	case r.Source == plan.Clone && src != nil && src.PVC != nil:
		w.quoted(6, naming.GoldenAnnotation+": ", d.Annotations[naming.GoldenAnnotation])
		w.quoted(6, naming.PoolAnnotation+": ", d.Annotations[naming.PoolAnnotation])
		w.line(2, "spec:")
		w.line(4, "source:")
		w.line(6, "pvc:")
		w.field(8, "namespace: ", src.PVC.Namespace)
		w.field(8, "name: ", src.PVC.Name)
	default:
		return "", fmt.Errorf("the plan's source %q does not match its disk's source", r.Source)
	}
	w.line(4, "storage:")
	w.line(6, "resources:")
	w.line(8, "requests:")
	w.quoted(10, "storage: ", r.DiskSize)
	if st := d.Spec.Storage; st != nil && st.StorageClassName != nil && *st.StorageClassName != "" {
		w.quoted(6, "storageClassName: ", *st.StorageClassName)
	}
	return w.String(), nil
}

// quote is Helm's quote (sprig's): Go's %q of the string.
func quote(s string) string { return strconv.Quote(s) }

// lines builds indented YAML text: every line starts with pad spaces and
// its own indentation, and ends in "\n".
type lines struct {
	strings.Builder
	pad int
}

// spaces is enough indentation for any line; longer pads are written in
// pieces.
const spaces = "                                                                "

func (w *lines) indent(n int) {
	for n > len(spaces) {
		w.WriteString(spaces)
		n -= len(spaces)
	}
	w.WriteString(spaces[:n])
}

func (w *lines) line(indent int, s string) {
	w.indent(w.pad + indent)
	w.WriteString(s)
	w.WriteByte('\n')
}

// field writes key (with its ": ") and value as given.
func (w *lines) field(indent int, key, value string) {
	w.indent(w.pad + indent)
	w.WriteString(key)
	w.WriteString(value)
	w.WriteByte('\n')
}

// quoted writes key and value through Helm's quote.
func (w *lines) quoted(indent int, key, value string) {
	w.indent(w.pad + indent)
	w.WriteString(key)
	var buf [160]byte
	w.Write(strconv.AppendQuote(buf[:0], value))
	w.WriteByte('\n')
}
