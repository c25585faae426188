package charttext

import (
	"errors"
	"strings"
	"sync"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// Indent is the indentation of the disk-system entry's "- metadata:" line
// inside the kubevirtmachinetemplate define.
const Indent = 6

// value names the Disk field a line ends in.
type value int

const (
	constant value = iota
	name
	usePopulator
	url
	golden
	pool
	pvcNamespace
	pvcName
	diskSize
	class
)

func valueOf(d *diskentry.Disk, v value) string {
	switch v {
	case name:
		return d.Name
	case usePopulator:
		return d.UsePopulator
	case url:
		return d.URL
	case golden:
		return d.Golden
	case pool:
		return d.Pool
	case pvcNamespace:
		return d.PVCNamespace
	case pvcName:
		return d.PVCName
	case diskSize:
		return d.Size
	case class:
		return d.Class
	}
	return ""
}

// line is one line of the entry: its indentation under "- metadata:", its
// text (a key with its ": " when a value follows), and the value, written
// through quote when quoted.
type line struct {
	indent int
	text   string
	value  value
	quoted bool
}

// The entry's lines, the chart's layout, for each path. The
// storageClassName line follows them when the class is not empty.
var (
	httpLines = []line{
		{0, "- metadata:", constant, false},
		{4, "name: ", name, false},
		{4, "annotations:", constant, false},
		{6, naming.UsePopulatorAnnotation + ": ", usePopulator, true},
		{2, "spec:", constant, false},
		{4, "source:", constant, false},
		{6, "http:", constant, false},
		{8, "url: ", url, false},
		{4, "storage:", constant, false},
		{6, "resources:", constant, false},
		{8, "requests:", constant, false},
		{10, "storage: ", diskSize, true},
	}
	cloneLines = []line{
		{0, "- metadata:", constant, false},
		{4, "name: ", name, false},
		{4, "annotations:", constant, false},
		{6, naming.GoldenAnnotation + ": ", golden, true},
		{6, naming.PoolAnnotation + ": ", pool, true},
		{2, "spec:", constant, false},
		{4, "source:", constant, false},
		{6, "pvc:", constant, false},
		{8, "namespace: ", pvcNamespace, false},
		{8, "name: ", pvcName, false},
		{4, "storage:", constant, false},
		{6, "resources:", constant, false},
		{8, "requests:", constant, false},
		{10, "storage: ", diskSize, true},
	}
	classLine = line{6, "storageClassName: ", class, true}
)

// piece is a run of the entry's text that does not change from disk to
// disk, then the value written after it (constant for none).
type piece struct {
	text   string
	value  value
	quoted bool
}

// layout is an entry's text at one indentation, its constant runs joined:
// the HTTP entry is five pieces where it is twelve lines.
type layout struct {
	http, clone []piece
	// class is the storageClassName line, written after the others when
	// the class is not empty.
	class piece
}

func compile(lines []line, pad int) []piece {
	var out []piece
	var run strings.Builder
	for _, l := range lines {
		run.WriteString(strings.Repeat(" ", pad+l.indent))
		run.WriteString(l.text)
		if l.value == constant {
			run.WriteByte('\n')
			continue
		}
		out = append(out, piece{text: run.String(), value: l.value, quoted: l.quoted})
		run.Reset()
		run.WriteByte('\n')
	}
	return append(out, piece{text: run.String()})
}

func newLayout(pad int) *layout {
	l := &layout{http: compile(httpLines, pad), clone: compile(cloneLines, pad)}
	l.class = compile([]line{classLine}, pad)[0]
	return l
}

// layouts holds the layouts of the indentations a template nests the
// entry at (the chart's is Indent), each compiled once, on first use.
var layouts [32]struct {
	once sync.Once
	l    *layout
}

func layoutAt(pad int) *layout {
	at := &layouts[pad]
	at.once.Do(func() { at.l = newLayout(pad) })
	return at.l
}

// MaxIndent is the deepest indentation DiskText writes; a deeper one is
// written at MaxIndent.
const MaxIndent = 1 << 10

// DiskText is the entry at indent (a negative one is 0), each line ending in
// "\n", written in one allocation: the text is put together on the stack
// (an entry is about 600 bytes) and copied out once. Below 32 spaces the
// entry's layout is compiled once per indentation; a deeper entry is
// written line by line.
func DiskText(d *diskentry.Disk, indent int) string {
	indent = min(max(indent, 0), MaxIndent)
	var stack [1024]byte
	buf := stack[:0]
	if indent >= len(layouts) {
		return string(appendLines(buf, d, indent))
	}
	l := layoutAt(indent)
	pieces := l.http
	if d.Clone {
		pieces = l.clone
	}
	for i := range pieces {
		buf = pieces[i].append(buf, d)
	}
	if d.Class != "" {
		buf = l.class.append(buf, d)
		buf = append(buf, '\n')
	}
	return string(buf)
}

// appendLines appends the entry line by line at pad, uncompiled.
func appendLines(buf []byte, d *diskentry.Disk, pad int) []byte {
	lines := httpLines
	if d.Clone {
		lines = cloneLines
	}
	for i := range lines {
		buf = appendLine(buf, d, pad, &lines[i])
	}
	if d.Class != "" {
		buf = appendLine(buf, d, pad, &classLine)
	}
	return buf
}

func appendLine(buf []byte, d *diskentry.Disk, pad int, l *line) []byte {
	buf = appendIndent(buf, pad+l.indent)
	buf = append(buf, l.text...)
	buf = (&piece{value: l.value, quoted: l.quoted}).append(buf, d)
	return append(buf, '\n')
}

func (p *piece) append(buf []byte, d *diskentry.Disk) []byte {
	buf = append(buf, p.text...)
	switch v := valueOf(d, p.value); {
	case p.value == constant:
		return buf
	case p.quoted:
		return appendQuoted(buf, v)
	default:
		return append(buf, v...)
	}
}

// ErrSourceMismatch is DiskOf's error for a disk whose source is not the
// one its path writes.
var ErrSourceMismatch = errors.New("the disk's source is not its path's")

// DiskOf reads a planned disk-system entry: its name, annotations and spec,
// its size as the chart renders diskSize, and whether it is the clone path
// (a pvc source) or the HTTP path (an http source).
func DiskOf(name string, annotations map[string]string, spec *cdiv1.DataVolumeSpec, size string, clone bool) (diskentry.Disk, error) {
	d := diskentry.Disk{Name: name, Clone: clone, Size: size}
	src := spec.Source
	switch {
	case clone && src != nil && src.PVC != nil:
		d.Golden, d.Pool = annotations[naming.GoldenAnnotation], annotations[naming.PoolAnnotation]
		d.PVCNamespace, d.PVCName = src.PVC.Namespace, src.PVC.Name
	case !clone && src != nil && src.HTTP != nil:
		d.UsePopulator, d.URL = annotations[naming.UsePopulatorAnnotation], src.HTTP.URL
	default:
		return diskentry.Disk{}, ErrSourceMismatch
	}
	if st := spec.Storage; st != nil && st.StorageClassName != nil {
		d.Class = *st.StorageClassName
	}
	return d, nil
}
