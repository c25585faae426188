package vmimages

import (
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
)

// The vm-default-images chart's names and defaults.
const (
	// GoldenPrefix starts every golden's name: an image "ubuntu" is the
	// DataVolume vm-default-images-ubuntu in cozy-public.
	GoldenPrefix        = "vm-default-images-"
	defaultStorage      = "5Gi"
	defaultStorageClass = "replicated"
	subject             = "image catalog"
)

// The keys the chart reads, for UnknownField. os, architecture and
// description only annotate the golden.
var (
	valuesKeys = chartvalues.NewKeys("storageClass", "images")
	imageKeys  = chartvalues.NewKeys("name", "url", "storage", "storageClass", "os", "architecture", "description")
	osKeys     = chartvalues.NewKeys("family", "name", "version")
)

var pathImages = field.NewPath("images")

// entry is one image with the chart's fallbacks applied.
type entry struct {
	index int
	name  string
	// golden is the DataVolume's name, "" when name makes none.
	golden string
	url    string
	// storage is what the chart writes; size is it parsed (zero when it
	// is no positive quantity).
	storage string
	size    resource.Quantity
	// class is the entry's, else the global one; "" is the cluster default.
	class string
	// classPath is where class came from.
	classPath *field.Path
	// meta are the annotations the chart writes from os, architecture and
	// description.
	meta map[string]string
	// dv is the entry's DataVolume, nil when it renders none.
	dv *cdiv1.DataVolume
}

func (e *entry) path() *field.Path { return pathImages.Index(e.index) }

// Catalog is the vm-default-images values, read once. It never changes
// and is safe to share between goroutines.
type Catalog struct {
	known    bool
	entries  []entry
	byName   map[string]int
	refusals guard.Refusals
	warnings guard.Warnings
}

// Known reports whether the values list the images: an absent images
// list is the chart's shipped one, which this package does not carry. A
// nil catalog is unknown.
func (c *Catalog) Known() bool { return c != nil && c.known }

// Golden is the golden DataVolume of an image as the chart renders it, and
// whether the catalog has the image (an entry that renders no DataVolume,
// such as one without a url, is not had). The DataVolume is the
// catalog's, made once: read it, do not modify it.
func (c *Catalog) Golden(image string) (*cdiv1.DataVolume, bool) {
	if c == nil {
		return nil, false
	}
	i, ok := c.byName[image]
	if !ok || c.entries[i].dv == nil {
		return nil, false
	}
	return c.entries[i].dv, true
}

// renders reports whether the entry makes a DataVolume.
func (e *entry) renders() bool { return e.golden != "" && e.url != "" && !e.size.IsZero() }

// Decode reads the vm-default-images values as Helm holds them
// (map[string]any), with the chart's defaults: storageClass replicated
// unless set ("" or null: the cluster default), each image's storage 5Gi
// unless set (Helm's default: "", 0 and null are unset), its storageClass
// the global one unless set. It never fails: what the values get wrong is
// kept on the catalog and reported by Render, every finding at its path.
// For example {images: [{name: ubuntu, url: https://example.com/u.img}]}
// is one golden vm-default-images-ubuntu of 5Gi on replicated, and an
// entry without url is refused InvalidValue at images[0].url, as the
// chart's required fails.
func Decode(values any) *Catalog {
	c := &Catalog{byName: map[string]int{}}
	var col findings.Collector
	col.Subject = subject
	defer func() { c.refusals, c.warnings = col.Refusals(), col.Warnings() }()
	m := map[string]any{}
	if values != nil {
		var ok bool
		if m, ok = chartvalues.Map(values); !ok {
			chartvalues.RefuseType(&col, values, chartvalues.Object, nil)
			return c
		}
	}
	chartvalues.WarnUnknown(&col, m, valuesKeys, nil)
	global, globalPath := defaultStorageClass, field.NewPath("storageClass")
	if raw, present := m["storageClass"]; present {
		global = chartvalues.TextOf(&col, raw, globalPath)
	}
	raw, present := m["images"]
	if !present {
		return c
	}
	c.known = true
	if raw == nil {
		return c
	}
	list, ok := chartvalues.List(raw)
	if !ok {
		chartvalues.RefuseType(&col, raw, chartvalues.Objects, pathImages)
		return c
	}
	c.entries = make([]entry, len(list))
	for i, item := range list {
		e := &c.entries[i]
		e.index = i
		c.decodeEntry(&col, e, item, global, globalPath)
	}
	for i := range c.entries {
		if e := &c.entries[i]; e.renders() {
			dv := newGolden(e)
			e.dv = &dv
		}
	}
	return c
}

func (c *Catalog) decodeEntry(col *findings.Collector, e *entry, item any, global string, globalPath *field.Path) {
	at := e.path()
	m, ok := chartvalues.Map(item)
	if !ok {
		chartvalues.RefuseType(col, item, chartvalues.Object, at)
		return
	}
	chartvalues.WarnUnknown(col, m, imageKeys, at)
	e.name = chartvalues.TextOf(col, m["name"], at.Child("name"))
	switch {
	case e.name == "":
		col.Refuse(guard.InvalidValue, at.Child("name"), "",
			"images[%d] has no name, and the chart fails on it (\"A valid .name entry required for each image!\"); name the image, as vm-disks refer to it", e.index)
	default:
		e.golden = GoldenPrefix + e.name
		if errs := validation.IsDNS1123Subdomain(e.golden); len(errs) > 0 {
			col.Refuse(guard.InvalidValue, at.Child("name"), e.name,
				"image %q makes the DataVolume name %q, which is not a DNS-1123 subdomain (%s); name the image in lowercase letters, digits, '-' and '.'", e.name, e.golden, strings.Join(errs, "; "))
			e.golden = ""
		} else if j, dup := c.byName[e.name]; dup {
			col.Refuse(guard.DuplicateCatalogEntry, at, e.name,
				"image %q repeats images[%d]; one name is one golden, so remove one of the two entries", e.name, j)
			e.golden = "" // the first entry's golden
		} else {
			c.byName[e.name] = e.index
		}
	}
	e.url = chartvalues.TextOf(col, m["url"], at.Child("url"))
	switch u, err := url.Parse(e.url); {
	case e.url == "":
		col.Refuse(guard.InvalidValue, at.Child("url"), "",
			"image %q has no url, and the chart fails on it (\"A valid .url entry required\"); set the HTTP(S) URL CDI imports the image from", e.name)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		col.Refuse(guard.InvalidValue, at.Child("url"), e.url,
			"image %q's url %q is not an absolute http or https URL, the only kind CDI's HTTP import reads; write one such as https://cloud-images.ubuntu.com/...", e.name, e.url)
		e.url = ""
	}
	e.storage = defaultStorage
	if raw := m["storage"]; !chartvalues.Empty(raw) {
		fld := at.Child("storage")
		if chartvalues.Quantity.Accepts(raw) {
			e.storage = chartvalues.Print(raw)
			if d, isNumber := chartvalues.Decimal(raw); isNumber {
				// Kubernetes reads the printed number as it reads an
				// int-or-string: its decimal value.
				e.storage = d
			}
		} else {
			chartvalues.RefuseType(col, raw, chartvalues.Quantity, fld)
			e.storage = ""
		}
		if e.storage != "" {
			q, errs := size.Parse(e.storage, fld)
			col.Add(errs)
			e.size = q
		}
	} else {
		e.size = resource.MustParse(defaultStorage)
	}
	e.class, e.classPath = global, globalPath
	if raw := m["storageClass"]; raw != nil {
		if s := chartvalues.TextOf(col, raw, at.Child("storageClass")); s != "" {
			e.class, e.classPath = s, at.Child("storageClass")
		}
	}
	e.meta = annotations(col, m, at)
}

// annotations are the golden's descriptive annotations, as the chart
// writes them from os, architecture and description (each only when set).
func annotations(col *findings.Collector, m map[string]any, at *field.Path) map[string]string {
	out := map[string]string{}
	set := func(key string, raw any) {
		if chartvalues.Empty(raw) {
			return
		}
		out["vm-default-images.cozystack.io/"+key] = chartvalues.Print(raw)
	}
	if raw := m["os"]; raw != nil {
		if os, ok := chartvalues.Map(raw); ok {
			chartvalues.WarnUnknown(col, os, osKeys, at.Child("os"))
			for _, k := range []string{"family", "name", "version"} {
				set("os-"+k, os[k])
			}
		} else {
			chartvalues.RefuseType(col, raw, chartvalues.Object, at.Child("os"))
		}
	}
	set("architecture", m["architecture"])
	set("description", m["description"])
	return out
}
