package catalog

import "github.com/cozystack/kubernetes-worker-image/guard"

// The catalog package's chart defaults (the kubernetes-worker-image values).
// The default flavor, factory and class are also the pool chart's (plan's
// DefaultSchematicID and the rest are these), so that the default golden is
// the one a pool clones unless it names another.
const (
	DefaultImageFactoryURL = "https://factory.talos.dev"
	DefaultStorageClass    = "replicated"
	DefaultStorage         = "6Gi"
	DefaultSchematicID     = "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515"
	DefaultVersion         = "v1.13.6"
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

// Image is one catalog entry: one golden per (SchematicID, Version). Empty
// optional fields fall back to the catalog's, as Helm's default does.
type Image struct {
	SchematicID     string `json:"schematicID"`
	Version         string `json:"version"`
	ImageFactoryURL string `json:"imageFactoryURL,omitempty"`
	Storage         string `json:"storage,omitempty"`
	StorageClass    string `json:"storageClass,omitempty"`
}

// Default returns the shipped catalog values: disabled, holding the pool
// chart's default flavor.
func Default() Values {
	return Values{
		ImageFactoryURL: DefaultImageFactoryURL,
		StorageClass:    DefaultStorageClass,
		Storage:         DefaultStorage,
		Images:          []Image{{SchematicID: DefaultSchematicID, Version: DefaultVersion}},
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
