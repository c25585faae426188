package catalog

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

// The keys the kubernetes-worker-image package defines, for UnknownField.
var (
	valuesKeys = chartvalues.NewKeys("enabled", "imageFactoryURL", "storageClass", "storage", "images")
	imageKeys  = chartvalues.NewKeys("schematicID", "version", "imageFactoryURL", "storage", "storageClass")
)

// DecodeValues reads the kubernetes-worker-image package's values as Helm
// holds them (map[string]any, or any Go map with string keys), with the
// chart's defaults: disabled unless enabled, the global imageFactoryURL,
// storageClass and storage, and images absent meaning the one default
// flavor while [] or null (Helm deletes the default) means none. It never
// fails: a value of a type the chart cannot read (InvalidValue, at its path
// such as images[2].storage) and a key the chart does not define
// (UnknownField: enable is not enabled) are carried on the values, and
// Compile gives them to the catalog.
func DecodeValues(values any) (v Values) {
	v = Default()
	var c findings.Collector
	c.Subject = subject
	defer func() { v.refusals, v.warnings = c.Refusals(), c.Warnings() }()
	if values == nil {
		return v
	}
	m, ok := chartvalues.Map(values)
	if !ok {
		chartvalues.RefuseType(&c, values, chartvalues.Object, nil)
		return v
	}
	chartvalues.WarnUnknown(&c, m, valuesKeys, nil)
	if raw, present := m["enabled"]; present {
		switch b, isBool := raw.(bool); {
		case raw == nil:
			v.Enabled = false
		case isBool:
			v.Enabled = b
		default:
			chartvalues.RefuseType(&c, raw, chartvalues.Bool, field.NewPath("enabled"))
		}
	}
	v.ImageFactoryURL = chartvalues.TextAt(&c, m, "imageFactoryURL", v.ImageFactoryURL, field.NewPath("imageFactoryURL"))
	v.StorageClass = chartvalues.TextAt(&c, m, "storageClass", v.StorageClass, field.NewPath("storageClass"))
	v.Storage = chartvalues.TextAt(&c, m, "storage", v.Storage, field.NewPath("storage"))
	if raw, present := m["images"]; present {
		v.Images = decodeImages(&c, raw)
	}
	return v
}

func decodeImages(c *findings.Collector, raw any) []Image {
	images := []Image{}
	if raw == nil {
		return images
	}
	fld := field.NewPath("images")
	list, ok := chartvalues.List(raw)
	if !ok {
		chartvalues.RefuseType(c, raw, chartvalues.Objects, fld)
		return images
	}
	for i, item := range list {
		at := fld.Index(i)
		m, ok := chartvalues.Map(item)
		if !ok {
			// A bad entry keeps its place: it would shift the indexes
			// that every later finding names.
			chartvalues.RefuseType(c, item, chartvalues.Object, at)
			images = append(images, Image{})
			continue
		}
		chartvalues.WarnUnknown(c, m, imageKeys, at)
		images = append(images, Image{
			Flavor: Flavor{
				SchematicID: chartvalues.TextAt(c, m, "schematicID", "", at.Child("schematicID")),
				Version:     chartvalues.TextAt(c, m, "version", "", at.Child("version")),
			},
			ImageFactoryURL: chartvalues.TextAt(c, m, "imageFactoryURL", "", at.Child("imageFactoryURL")),
			Storage:         chartvalues.TextAt(c, m, "storage", "", at.Child("storage")),
			StorageClass:    chartvalues.TextAt(c, m, "storageClass", "", at.Child("storageClass")),
		})
	}
	return images
}

// UnmarshalJSON reads values as DecodeValues does. Values the chart cannot
// read are an error (refusals of InvalidValue, guard.Refusals.Err); keys it does not
// define are kept as warnings that Render reports.
func (v *Values) UnmarshalJSON(data []byte) error {
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*v = DecodeValues(raw)
	return v.refusals.Err()
}
