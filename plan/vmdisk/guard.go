package vmdisk

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cloneguard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The DataVolume's fields the clone guards speak of, which guard moves to
// the VMDisk's.
var (
	dvPaths = cloneguard.Paths{
		Source: field.NewPath("spec", "source", "pvc"),
		Class:  field.NewPath("spec", "storage", "storageClassName"),
		Size:   field.NewPath("spec", "storage", "resources", "requests", "storage"),
	}
	dvSourceField = dvPaths.Source.String()
	dvClassField  = dvPaths.Class.String()
	dvSizeField   = dvPaths.Size.String()
)

// guard runs the clone guards (internal/cloneguard, the library's one
// implementation, as for a worker disk and any DataVolume) on the rendered
// DataVolume and moves their findings to the VMDisk's fields.
func (d *VMDisk) guard(c *findings.Collector, res *Result, images *vmimages.Catalog, snap *state.Snapshot) {
	src := res.DataVolume.Spec.Source.PVC
	req := cloneguard.Request{
		Namespace: d.Namespace, Class: d.class, Size: d.size, SizeOK: true,
		Source: stateindex.Key{Namespace: src.Namespace, Name: src.Name},
		Paths:  dvPaths,
		Words: cloneguard.Words{Disks: "the disk", Disk: "the disk", Owner: "the disk",
			ClassField: d.paths.class, SizeField: d.paths.size, SizeText: d.storage, SizeExample: defaultStorage},
	}
	if d.source == sourceImage {
		// An image's golden is the catalog's to make: one the catalog
		// does not have, nothing makes.
		req.Catalogued = true
		req.Words.OtherSource = d.paths.otherImage
		if g, ok := images.Golden(d.ref); ok {
			req.Managed, req.Expects = true, true
			req.Expected = golden.Expected{Class: stateindex.DataVolumeClass(g), Request: g.Spec.Storage.Resources.Requests[corev1.ResourceStorage]}
			if s := g.Spec.Source; s != nil && s.HTTP != nil {
				req.Expected.URL = s.HTTP.URL
			}
		}
	}
	v := cloneguard.Judge(&req, snap)
	if v.Class.Name != "" {
		res.StorageClass = v.Class
	}
	for _, r := range v.Findings.Refusals() {
		r.Field = d.field(r.Field)
		r.Detail += d.wayOut(r.Reason, v.SourceClass.Name)
	}
	ws := v.Findings.Warnings()
	for i := range ws {
		ws[i].Field = d.field(ws[i].Field)
	}
	c.Merge(&v.Findings)
	if d.source == sourceImage && !req.Managed && v.Source.Presence == golden.Absent {
		r := findings.NewRefusal(guard.GoldenNotInCatalog, nil, d.ref,
			"golden %s/%s does not exist, and no image catalog given to the plan has an entry that makes it, so the disk's clone waits for ever%s",
			src.Namespace, src.Name, d.wayOut(guard.GoldenNotInCatalog, ""))
		r.Field = d.paths.source
		c.Add(guard.Refusals{r})
	}
	for _, k := range v.Unverified.Each() {
		fld := d.paths.class
		if k&(state.DataVolume|state.PersistentVolumeClaim) != 0 {
			fld = d.paths.source
		}
		w := findings.NewWarning(guard.StateUnverified, nil,
			"%s objects were not observed, so the guards that read them did not run; plan against the cluster's state to check them", k)
		w.Field, w.Kind = fld, k.String()
		c.AddWarning(w)
	}
}

// field is the VMDisk's field a DataVolume's field comes from.
func (d *VMDisk) field(dv string) string {
	switch dv {
	case dvSourceField:
		return d.paths.source
	case dvClassField:
		return d.paths.class
	case dvSizeField:
		return d.paths.size
	}
	return dv
}

// wayOut is the VMDisk's one edit out of a refusal, when there is one:
// the class the source lives on, for a class it cannot clone onto.
func (d *VMDisk) wayOut(reason guard.Reason, sourceClass string) string {
	what := "the image"
	if d.source == sourceDisk {
		what = "the disk it clones"
	}
	switch reason {
	case guard.StorageClassMismatch, guard.StorageClassNotFound, guard.DefaultStorageClassUnresolvable:
		if sourceClass != "" {
			return "; set " + d.paths.class + ": " + sourceClass + ", the class " + what + " lives on"
		}
	case guard.GoldenNotInCatalog:
		return "; pick an image of the vm-default-images catalog in " + d.paths.source + ", or add " + d.ref + " to its images"
	}
	return ""
}
