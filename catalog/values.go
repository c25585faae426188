package catalog

import (
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
)

// Values are the catalog package's values, with the chart's defaults
// applied: use Default, or read values with DecodeValues (or encoding/json
// and sigs.k8s.io/yaml, through UnmarshalJSON), which read them as the chart
// does.
type Values struct {
	// Enabled turns the catalog on; it is opt-in.
	Enabled bool `json:"enabled"`
	// ImageFactoryURL is the factory every entry imports from unless it names its own.
	ImageFactoryURL string `json:"imageFactoryURL"`
	// StorageClass of every golden unless an entry names its own; "" is the
	// cluster default.
	StorageClass string `json:"storageClass"`
	// Storage is the size of every golden unless an entry names its own.
	Storage string `json:"storage"`
	// Images are the goldens. Absent means the one default flavor; an
	// explicit empty list means none.
	Images []Image `json:"images"`

	// The findings of decoding the values (DecodeValues).
	refusals guard.Refusals
	warnings guard.Warnings
}

// Image is one catalog entry: one golden per Flavor, whose schematicID and
// version are keys of the image itself in JSON and YAML. Empty optional
// fields fall back to the catalog's, as Helm's default does.
type Image struct {
	Flavor          `json:",inline"`
	ImageFactoryURL string `json:"imageFactoryURL,omitempty"`
	Storage         string `json:"storage,omitempty"`
	StorageClass    string `json:"storageClass,omitempty"`
}

// Default returns the shipped catalog values: disabled, holding the pool
// chart's default flavor.
func Default() Values {
	return Values{
		ImageFactoryURL: chartdefaults.ImageFactoryURL,
		StorageClass:    chartdefaults.StorageClass,
		Storage:         chartdefaults.Storage,
		Images:          []Image{{Flavor: Flavor{SchematicID: chartdefaults.SchematicID, Version: chartdefaults.Version}}},
	}
}

// clone copies v, so that a compiled catalog shares no slice with its caller.
func (v Values) clone() Values {
	if v.Images != nil {
		v.Images = append([]Image{}, v.Images...)
	}
	v.refusals, v.warnings = clone(v.refusals), append(guard.Warnings(nil), v.warnings...)
	return v
}
