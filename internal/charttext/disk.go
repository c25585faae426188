package charttext

import (
	"errors"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// Indent is the indentation of the disk-system entry's "- metadata:" line
// inside the kubevirtmachinetemplate define.
const Indent = 6

// Disk is what the disk-system entry's text is written from.
type Disk struct {
	// Name is the entry's name, disk-system.
	Name string
	// Clone writes the clone path: the golden's pvc source and the golden
	// and pool annotations. Otherwise the HTTP path: the usePopulator
	// annotation and the URL.
	Clone bool
	// UsePopulator is the HTTP path's usePopulator annotation value.
	UsePopulator string
	// URL is the HTTP path's image URL, written as given (unquoted, as the
	// chart writes it).
	URL string
	// Golden and Pool are the clone path's golden and pool annotation
	// values; PVCNamespace and PVCName its source.
	Golden, Pool          string
	PVCNamespace, PVCName string
	// Size is diskSize as the chart renders it, through quote.
	Size string
	// Class is written through quote; "" leaves the storageClassName line
	// out, as the chart's `with` does.
	Class string
}

// Write writes the entry, its "- metadata:" line at w.Pad spaces.
func (d *Disk) Write(w *Lines) {
	w.Line(0, "- metadata:")
	w.Field(4, "name: ", d.Name)
	w.Line(4, "annotations:")
	if d.Clone {
		w.Quoted(6, naming.GoldenAnnotation+": ", d.Golden)
		w.Quoted(6, naming.PoolAnnotation+": ", d.Pool)
		w.Line(2, "spec:")
		w.Line(4, "source:")
		w.Line(6, "pvc:")
		w.Field(8, "namespace: ", d.PVCNamespace)
		w.Field(8, "name: ", d.PVCName)
	} else {
		w.Quoted(6, naming.UsePopulatorAnnotation+": ", d.UsePopulator)
		w.Line(2, "spec:")
		w.Line(4, "source:")
		w.Line(6, "http:")
		w.Field(8, "url: ", d.URL)
	}
	w.Line(4, "storage:")
	w.Line(6, "resources:")
	w.Line(8, "requests:")
	w.Quoted(10, "storage: ", d.Size)
	if d.Class != "" {
		w.Quoted(6, "storageClassName: ", d.Class)
	}
}

// Text is the entry at indent, each line ending in "\n".
func (d *Disk) Text(indent int) string {
	w := Lines{Pad: indent}
	// One allocation: the entry's text is about 560 bytes plus its values
	// and 15 lines of indentation.
	w.Grow(600 + 15*indent + len(d.Name) + len(d.Size))
	d.Write(&w)
	return w.String()
}

// ErrSourceMismatch is DiskOf's error for a disk whose source is not the
// one its path writes.
var ErrSourceMismatch = errors.New("the disk's source is not its path's")

// DiskOf reads a planned disk-system entry: its name, annotations and spec,
// its size as the chart renders diskSize, and whether it is the clone path
// (a pvc source) or the HTTP path (an http source).
func DiskOf(name string, annotations map[string]string, spec *cdiv1.DataVolumeSpec, size string, clone bool) (Disk, error) {
	d := Disk{Name: name, Clone: clone, Size: size}
	src := spec.Source
	switch {
	case clone && src != nil && src.PVC != nil:
		d.Golden, d.Pool = annotations[naming.GoldenAnnotation], annotations[naming.PoolAnnotation]
		d.PVCNamespace, d.PVCName = src.PVC.Namespace, src.PVC.Name
	case !clone && src != nil && src.HTTP != nil:
		d.UsePopulator, d.URL = annotations[naming.UsePopulatorAnnotation], src.HTTP.URL
	default:
		return Disk{}, ErrSourceMismatch
	}
	if st := spec.Storage; st != nil && st.StorageClassName != nil {
		d.Class = *st.StorageClassName
	}
	return d, nil
}
