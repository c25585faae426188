package plan

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/poolkeys"
)

// Pool values are read one way, whichever path they come by (a values map
// from Helm or a controller, a KubernetesNodes object, JSON): as the
// kubernetes-nodes chart reads them once Helm has coalesced them with its
// defaults and held them to its values schema. An
// absent key takes the chart's default; a null deletes it, default
// included (so a null talos, or a null talos value the schema requires,
// fails the release); a value of a type the schema refuses is
// InvalidValue at its path, a diskSize of a type the schema refuses (a
// fraction, a boolean, "") included; a number is what Helm prints for the
// float64 Flux hands it.

// PoolKind is the kind of a worker pool: a KubernetesNodes of
// apps.cozystack.io/v1alpha1.
const (
	PoolKind       = "KubernetesNodes"
	PoolAPIVersion = "apps.cozystack.io/v1alpha1"
)

// DecodePool reads a KubernetesNodes pool from its spec, the
// kubernetes-nodes chart's values as Helm holds them (map[string]any, or
// any Go map with string keys). It never fails: what the values get wrong
// (InvalidValue where the chart cannot read a value, UnknownField where it
// defines no key) is carried on the pool and reported by Plan with every
// other finding. For example the spec {cluster: demo, osImage: {builtin:
// {}}} is the default flavor, cloned, at 20Gi on "replicated".
func DecodePool(namespace, name string, spec any) Pool {
	return Pool{Namespace: namespace, Name: name, Spec: decodeSpec(spec)}
}

// PoolFromObject reads a KubernetesNodes object (an unstructured object's
// content, as a dynamic client or a YAML decoder holds it) into a Pool, its
// spec read as DecodePool reads it. It fails only when obj is not a
// KubernetesNodes; a namespace it does not name is left "" for the caller
// to default.
func PoolFromObject(obj map[string]any) (Pool, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion != PoolAPIVersion || kind != PoolKind {
		return Pool{}, fmt.Errorf("the object is %s %s, not a %s of %s", orNone(apiVersion), orNone(kind), PoolKind, PoolAPIVersion)
	}
	meta, _ := chartvalues.Map(obj["metadata"])
	namespace, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	return DecodePool(namespace, name, obj["spec"]), nil
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// UnmarshalJSON reads a spec as DecodePool does. Values the chart cannot
// read are an error (refusals of InvalidValue, guard.Refusals.Err); keys it does not
// define are kept as warnings that Plan reports.
func (s *PoolSpec) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = decodeSpec(v)
	return s.decoded.refusalsErr()
}

func decodeSpec(v any) (spec PoolSpec) {
	spec = DefaultPoolSpec("")
	var c findings.Collector
	defer func() { spec.decoded = newDecoding(&spec, c.Refusals(), c.Warnings()) }()
	if v == nil {
		return spec
	}
	m, ok := chartvalues.Map(v)
	if !ok {
		chartvalues.RefuseType(&c, v, chartvalues.Object, field.NewPath("spec"))
		return spec
	}
	chartvalues.WarnUnknown(&c, m, poolkeys.Spec, nil)
	spec.Cluster = chartvalues.TextAt(&c, m, "cluster", "", pathCluster)
	if raw, present := m["diskSize"]; present {
		spec.DiskSize = decodeDiskSize(&c, raw)
	}
	// storageClass is written only when it is not empty: "" and null
	// leave the class to the cluster.
	spec.StorageClass = chartvalues.TextAt(&c, m, "storageClass", spec.StorageClass, pathStorageClass)
	if raw, present := m["talos"]; present {
		spec.Talos = decodeTalos(&c, raw)
	}
	if raw := m["osImage"]; raw != nil {
		spec.OSImage = decodeOSImage(&c, raw)
	}
	return spec
}

// decodeDiskSize reads diskSize as the chart reads it: its values schema
// takes a whole number or a string (anyOf integer and string), and holds a
// string to its quantity pattern, so a fraction, a boolean, a map, a list
// and "" (which the pattern does not match) fail the release before
// anything renders: each is refused InvalidValue, and DiskSize is left ""
// (Plan checks a string against the pattern itself, whoever wrote it).
// What passes goes through the template's `diskSize | default "20Gi" |
// quote`: null (which Helm deletes) and 0 are unset, 20Gi; another number
// is printed as Helm prints the float64 Flux hands it.
func decodeDiskSize(c *findings.Collector, raw any) string {
	switch s, isString := raw.(string); {
	case raw == nil:
		return chartdefaults.DiskSize
	case s == "" && isString:
		c.Refuse(guard.InvalidValue, pathDiskSize, raw,
			`diskSize is "": the kubernetes-nodes values schema holds a diskSize string to its quantity pattern, which "" does not match, so Helm refuses the release; leave diskSize out for the chart's %s, or write a size`, chartdefaults.DiskSize)
		return ""
	case isString:
		return s
	case !chartvalues.Quantity.Accepts(raw):
		c.Refuse(guard.InvalidValue, pathDiskSize, raw,
			"diskSize is %s: the kubernetes-nodes values schema takes a whole number of bytes or a quantity string there, so Helm refuses the release; write a size such as %q", chartvalues.Describe(raw), chartdefaults.DiskSize)
		return ""
	case chartvalues.Empty(raw):
		return chartdefaults.DiskSize
	}
	return chartvalues.Print(raw)
}

// decodeTalos reads talos. The chart's schema requires each of its values,
// the four strings and the registryMirrors map: a null deletes one (and a
// null talos all of them, on which the chart's templates fail to render),
// so each is refused, as is a value of another type; a key left out keeps
// its default.
func decodeTalos(c *findings.Collector, raw any) Talos {
	if raw == nil {
		c.Refuse(guard.InvalidValue, pathTalos, nil,
			"talos is null: Helm deletes the chart's talos values with it, and the kubernetes-nodes templates fail to render without them; leave talos out to take the chart's, or set the values to change")
		return Talos{}
	}
	m, ok := chartvalues.Map(raw)
	if !ok {
		chartvalues.RefuseType(c, raw, chartvalues.Object, pathTalos)
		return Talos{}
	}
	chartvalues.WarnUnknown(c, m, poolkeys.Talos, pathTalos)
	d := DefaultTalos()
	required := func(key, def string, fld *field.Path) string {
		if raw, present := m[key]; present && raw == nil {
			c.Refuse(guard.InvalidValue, fld, nil,
				"%s is null: Helm deletes the chart's default with it, and the kubernetes-nodes values schema requires it, so the release fails; leave %s out to take the chart's %q", fld, key, def)
			return ""
		}
		return chartvalues.TextAt(c, m, key, def, fld)
	}
	// registryMirrors is not the planner's, but the schema requires it as
	// a map: a null (deleted with the default) or another type fails the
	// release, and no disk renders.
	if raw, present := m["registryMirrors"]; present {
		fld := pathTalos.Child("registryMirrors")
		if raw == nil {
			c.Refuse(guard.InvalidValue, fld, nil,
				"%s is null: Helm deletes the chart's default ({}) with it, and the kubernetes-nodes values schema requires it, so the release fails; leave registryMirrors out, or set it to {}", fld)
		} else if _, ok := chartvalues.Map(raw); !ok {
			chartvalues.RefuseType(c, raw, chartvalues.Object, fld)
		}
	}
	return Talos{
		Flavor: catalog.Flavor{
			SchematicID: required("schematicID", d.SchematicID, pathTalosSchematicID),
			Version:     required("version", d.Version, pathTalosVersion),
		},
		ImageFactoryURL:     required("imageFactoryURL", d.ImageFactoryURL, pathTalos.Child("imageFactoryURL")),
		InstallerRepository: required("installerRepository", d.InstallerRepository, pathTalos.Child("installerRepository")),
	}
}

func decodeOSImage(c *findings.Collector, raw any) *OSImage {
	m, ok := chartvalues.Map(raw)
	if !ok {
		chartvalues.RefuseType(c, raw, chartvalues.Object, pathOSImage)
		return nil
	}
	chartvalues.WarnUnknown(c, m, poolkeys.OSImage, pathOSImage)
	// The image and its forms in one allocation: every pool is decoded on
	// every render.
	parts := &struct {
		img     OSImage
		builtin catalog.Flavor
	}{}
	img := &parts.img
	if b := m["builtin"]; b != nil {
		if bm, ok := chartvalues.Map(b); ok {
			chartvalues.WarnUnknown(c, bm, poolkeys.Builtin, pathBuiltin)
			parts.builtin = catalog.Flavor{
				SchematicID: chartvalues.TextAt(c, bm, "schematicID", "", pathBuiltinSchematicID),
				Version:     chartvalues.TextAt(c, bm, "version", "", pathBuiltinVersion),
			}
			img.Builtin = &parts.builtin
		} else {
			chartvalues.RefuseType(c, b, chartvalues.Object, pathBuiltin)
		}
	}
	if f := m["factory"]; f != nil {
		if fm, ok := chartvalues.Map(f); ok {
			chartvalues.WarnUnknown(c, fm, poolkeys.Factory, pathFactory)
			img.Factory = &Factory{
				Flavor: catalog.Flavor{
					SchematicID: chartvalues.TextAt(c, fm, "schematicID", "", pathFactory.Child("schematicID")),
					Version:     chartvalues.TextAt(c, fm, "version", "", pathFactory.Child("version")),
				},
				ImageFactoryURL: chartvalues.TextAt(c, fm, "imageFactoryURL", "", pathFactory.Child("imageFactoryURL")),
			}
		} else {
			chartvalues.RefuseType(c, f, chartvalues.Object, pathFactory)
		}
	}
	if img.Builtin == nil && img.Factory == nil {
		return nil
	}
	return img
}
