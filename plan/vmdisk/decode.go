package vmdisk

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// The objects a VMDisk comes as, and the vm-disk chart's names and
// defaults.
const (
	kindVMDisk        = "VMDisk"
	apiVersionVMDisk  = "apps.cozystack.io/v1alpha1"
	kindHelmRelease   = "HelmRelease"
	groupHelmRelease  = "helm.toolkit.fluxcd.io/"
	applicationKind   = "apps.cozystack.io/application.kind"
	releasePrefix     = "vm-disk-"
	defaultStorage    = "5Gi"
	defaultClass      = "replicated"
	maxReleaseNameLen = 53 // Helm's limit on a release name
)

// Source kinds, as Result.Source names them.
const (
	sourceImage  = "image"
	sourceDisk   = "disk"
	sourceHTTP   = "http"
	sourceUpload = "upload"
	sourceBlank  = "blank"
)

var (
	sourceKeys = chartvalues.NewKeys(sourceImage, sourceHTTP, sourceUpload, sourceDisk)
	specKeys   = chartvalues.NewKeys("source", "optical", "storage", "storageClass")
)

// VMDisk is one VMDisk (apps.cozystack.io/v1alpha1), or the vm-disk
// HelmRelease it is served as, read as the vm-disk chart reads its values.
// Build it with Decode; its zero value is a blank disk with no name.
type VMDisk struct {
	// Namespace is the tenant namespace; Name the VMDisk's name (its
	// release and DataVolume are vm-disk-<Name>).
	Namespace, Name string

	// root is where the values sit in the object: spec, or spec.values;
	// paths are the fields the clone guards' findings move to.
	root  *field.Path
	paths paths
	// rendered is the DataVolume the chart creates of these values, made
	// once: every plan of the VMDisk shares it.
	rendered *cdiv1.DataVolume
	source   string
	// ref is the image, the disk or the URL the source names.
	ref     string
	optical string
	// storage is the size as the chart writes it; size is it parsed, zero
	// when it is no positive quantity.
	storage string
	size    resource.Quantity
	// class is the class the chart writes, "" for none (the cluster
	// default).
	class string
	// schema are the findings of the values schema, which hold on every
	// apply; template those of the template's create branch, which a
	// DataVolume that exists skips.
	schema   findings.Collector
	template findings.Collector
}

// Decode reads a VMDisk object or a vm-disk HelmRelease (an unstructured
// object's content, as a dynamic client or a YAML decoder holds it) as the
// vm-disk chart reads its values once Helm has applied its defaults:
// source {} (none, or null) is a blank disk, storage 5Gi, storageClass
// replicated ("" or null: the cluster default), optical false. It fails
// only when obj is neither; what the values get wrong is carried on the
// VMDisk and reported by Plan with every other finding, at the VMDisk's
// fields (spec.source.image.name, spec.storage, spec.storageClass; under
// spec.values for a HelmRelease). For example {source: {image: {name:
// ubuntu}}} clones cozy-public/vm-default-images-ubuntu into a 5Gi disk on
// replicated, and a source with both image and http is refused
// ConflictingImageSource at spec.source, as the chart fails on it.
func Decode(obj map[string]any) (VMDisk, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	meta, _ := chartvalues.Map(obj["metadata"])
	namespace, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	switch {
	case apiVersion == apiVersionVMDisk && kind == kindVMDisk:
		return decode(namespace, name, field.NewPath("spec"), obj["spec"]), nil
	case strings.HasPrefix(apiVersion, groupHelmRelease) && kind == kindHelmRelease:
		labels, _ := chartvalues.Map(meta["labels"])
		app, labelled := labels[applicationKind].(string)
		disk, prefixed := strings.CutPrefix(name, releasePrefix)
		if !prefixed || (labelled && app != kindVMDisk) {
			return VMDisk{}, fmt.Errorf("HelmRelease %s/%s is not a vm-disk release (its name does not start with %q, or its %s label is not %s)", namespace, name, releasePrefix, applicationKind, kindVMDisk)
		}
		spec, _ := chartvalues.Map(obj["spec"])
		return decode(namespace, disk, field.NewPath("spec", "values"), spec["values"]), nil
	}
	return VMDisk{}, fmt.Errorf("the object is %s %s, not a %s of %s nor a vm-disk %s", orNone(apiVersion), orNone(kind), kindVMDisk, apiVersionVMDisk, kindHelmRelease)
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func decode(namespace, name string, root *field.Path, values any) (d VMDisk) {
	d = VMDisk{Namespace: namespace, Name: name, root: root, source: sourceBlank, optical: "false",
		storage: defaultStorage, size: resource.MustParse(defaultStorage), class: defaultClass}
	defer func() { d.paths = fieldsOf(&d); d.rendered = d.render() }()
	d.checkName()
	if values == nil {
		return d
	}
	m, ok := chartvalues.Map(values)
	if !ok {
		chartvalues.RefuseType(&d.schema, values, chartvalues.Object, root)
		return d
	}
	chartvalues.WarnUnknown(&d.schema, m, specKeys, root)
	if raw, present := m["storage"]; present {
		d.decodeStorage(raw)
	}
	if raw, present := m["storageClass"]; present {
		// null deletes the default, and the chart then writes no class,
		// as for "".
		d.class = chartvalues.TextOf(&d.schema, raw, root.Child("storageClass"))
	}
	if raw, present := m["optical"]; present {
		switch b, isBool := raw.(bool); {
		case raw == nil:
			d.optical = "" // Helm prints nothing for a value it deleted
		case isBool:
			d.optical = fmt.Sprint(b)
		default:
			chartvalues.RefuseType(&d.schema, raw, chartvalues.Bool, root.Child("optical"))
		}
	}
	d.decodeSource(m["source"])
	return d
}

// paths are a VMDisk's fields, as strings, that the clone guards speak of.
// Beside them, the names a plan writes, made once: the release (the
// DataVolume's name), the PVC the disk clones, the subject findings name,
// and an image's other way out of a failed golden.
type paths struct{ source, class, size, release, clones, clonesRef, subject, otherImage string }

func fieldsOf(d *VMDisk) paths {
	p := paths{
		source:  d.root.Child("source", d.source, "name").String(),
		class:   d.root.Child("storageClass").String(),
		size:    d.root.Child("storage").String(),
		release: releasePrefix + d.Name,
		subject: "vmdisk " + d.Namespace + "/" + d.Name,
	}
	switch {
	case d.ref == "":
	case d.source == sourceImage:
		p.clones = vmimages.GoldenPrefix + d.ref
		p.clonesRef = naming.GoldenNamespace + "/" + p.clones
		p.otherImage = ", or pick another image in " + p.source
	case d.source == sourceDisk:
		p.clones = releasePrefix + d.ref
		p.clonesRef = d.Namespace + "/" + p.clones
	}
	return p
}

// checkName refuses a namespace that is no DNS-1123 label, and a name
// whose release vm-disk-<name> is no DNS-1123 label or longer than Helm
// takes.
func (d *VMDisk) checkName() {
	meta := field.NewPath("metadata")
	if errs := validation.IsDNS1123Label(d.Namespace); len(errs) > 0 {
		d.schema.Refuse(guard.InvalidValue, meta.Child("namespace"), d.Namespace,
			"namespace %q is not a DNS-1123 label (%s); a VMDisk lives in a tenant namespace such as tenant-demo", d.Namespace, strings.Join(errs, "; "))
	}
	release := releasePrefix + d.Name
	switch errs := validation.IsDNS1123Label(release); {
	case d.Name == "":
		d.schema.Refuse(guard.InvalidValue, meta.Child("name"), "", "the VMDisk has no name; name it in lowercase letters, digits and '-'")
	case len(release) > maxReleaseNameLen:
		d.schema.Refuse(guard.InvalidValue, meta.Child("name"), d.Name,
			"name %q makes the release %q, longer than Helm's %d characters; use a name of at most %d", d.Name, release, maxReleaseNameLen, maxReleaseNameLen-len(releasePrefix))
	case len(errs) > 0:
		d.schema.Refuse(guard.InvalidValue, meta.Child("name"), d.Name,
			"name %q makes the release %q, which is not a DNS-1123 label (%s); use lowercase letters, digits and '-'", d.Name, release, strings.Join(errs, "; "))
	}
}

// decodeStorage reads storage as the chart writes it, unquoted: a string
// as written, a number as Helm prints the float64 Flux hands it, which
// Kubernetes reads as a quantity. The values schema takes a whole number
// or a string of its quantity pattern; "" and null leave the chart
// writing no size at all, which CDI's webhook rejects.
func (d *VMDisk) decodeStorage(raw any) {
	fld := d.root.Child("storage")
	d.storage, d.size = "", resource.Quantity{}
	switch s, isString := raw.(string); {
	case raw == nil || (isString && s == ""):
		d.schema.Refuse(guard.InvalidQuantity, fld, raw,
			"storage is %s, so the chart writes a DataVolume with no size, which CDI rejects; set a size such as %s", chartvalues.Describe(raw), defaultStorage)
		return
	case isString:
		if !chartvalues.IsQuantity(s) {
			d.schema.Refuse(guard.InvalidQuantity, fld, s,
				"storage %q is not a quantity the vm-disk values schema takes; write a size such as %s", s, defaultStorage)
			return
		}
		d.storage = s
	case chartvalues.Quantity.Accepts(raw):
		d.storage, _ = chartvalues.Decimal(raw)
	default:
		chartvalues.RefuseType(&d.schema, raw, chartvalues.Quantity, fld)
		return
	}
	q, errs := size.Parse(d.storage, fld)
	if d.schema.Add(errs) {
		d.size = q
	}
}

// decodeSource reads source: exactly one of image, http, upload and disk,
// or none for a blank disk. The template's rules (one source, a required
// name or url) are refusals of a create only: once the DataVolume exists
// the chart keeps its spec.
func (d *VMDisk) decodeSource(raw any) {
	fld := d.root.Child("source")
	if raw == nil {
		return
	}
	m, ok := chartvalues.Map(raw)
	if !ok {
		chartvalues.RefuseType(&d.schema, raw, chartvalues.Object, fld)
		return
	}
	chartvalues.WarnUnknown(&d.schema, m, sourceKeys, fld)
	switch len(m) {
	case 0:
		return
	case 1:
	default:
		keys := make([]string, 0, len(m))
		for _, k := range sourceKeys.Names() {
			if _, ok := m[k]; ok {
				keys = append(keys, k)
			}
		}
		d.template.Refuse(guard.ConflictingImageSource, fld, strings.Join(keys, "+"),
			"source sets %d keys (%s), and the chart fails on it (\"Exactly one type of source is expected!\"); keep one of image, http, upload and disk", len(m), strings.Join(keys, ", "))
		return
	}
	for key, val := range m {
		d.decodeOne(key, val, fld)
	}
}

func (d *VMDisk) decodeOne(key string, val any, fld *field.Path) {
	at := fld.Child(key)
	var item map[string]any
	if val != nil {
		var ok bool
		if item, ok = chartvalues.Map(val); !ok {
			chartvalues.RefuseType(&d.schema, val, chartvalues.Object, at)
			return
		}
	}
	// The values schema requires the key (Helm deletes a null one first),
	// on every apply; the template's required fails on "" too, on a
	// create.
	need := func(k, what string) string {
		p := at.Child(k)
		raw := item[k]
		v := chartvalues.TextOf(&d.schema, raw, p)
		switch {
		case raw == nil:
			d.schema.Refuse(guard.InvalidValue, p, nil,
				"source.%s has no %s, which the vm-disk values schema requires, so Helm refuses the release on every apply; set %s", key, k, what)
		case raw == "":
			d.template.Refuse(guard.InvalidValue, p, "",
				"source.%s has no %s, and the chart fails on it (\"A valid .Values.source.%s.%s entry required!\"); set %s", key, k, key, k, what)
		}
		return v
	}
	switch key {
	case sourceImage:
		d.source = sourceImage
		d.ref = need("name", "the name of an image of the vm-default-images catalog")
		if d.ref != "" {
			if errs := validation.IsDNS1123Subdomain(vmimages.GoldenPrefix + d.ref); len(errs) > 0 {
				d.template.Refuse(guard.GoldenNotInCatalog, at.Child("name"), d.ref,
					"image %q names no golden: %q is not a DNS-1123 subdomain (%s), so no image of the catalog has it; pick an image of the vm-default-images catalog", d.ref, vmimages.GoldenPrefix+d.ref, strings.Join(errs, "; "))
				d.ref = ""
			}
		}
	case sourceDisk:
		d.source = sourceDisk
		d.ref = need("name", "the name of a VMDisk of this namespace to clone")
		if d.ref != "" && d.ref == d.Name {
			d.template.Refuse(guard.InvalidValue, at.Child("name"), d.ref,
				"the VMDisk clones itself (vm-disk-%s); name another VMDisk of the namespace", d.ref)
			d.ref = ""
		}
	case sourceHTTP:
		d.source = sourceHTTP
		d.ref = need("url", "the HTTP(S) URL of the image to import")
	case sourceUpload:
		d.source = sourceUpload
	default:
		// UnknownField already names the key the chart would have read.
		d.template.Refuse(guard.InvalidValue, at, key,
			"source.%s is no source the chart knows, so it renders a DataVolume with an empty source, which CDI rejects; use one of image, http, upload and disk", key)
	}
}
