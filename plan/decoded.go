package plan

import (
	"strings"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
)

// decoding is what decoding a spec's values found, kept beside the fields
// as the decoder left them, so that its findings follow a caller's edits:
// a refusal stands while every field it is about holds the value the
// decoder left there, and goes once the caller has written another (Plan
// then judges the new value as it judges any spec's). A value the chart
// cannot read is left as its field's zero, "", so that writing the
// chart's default (storageClass: 5 corrected to "replicated") is an edit;
// while the refusal stands, Plan plans with the chart's default there, as
// the decoder always has. UnknownField warnings are of keys the spec has
// no field for, which no edit changes: they always stand. A decoding is
// never changed once made: every copy of a spec shares it.
type decoding struct {
	refusals []decodeRefusal
	warnings guard.Warnings
	// left is each field as the decoder left it.
	left [fieldCount]fieldValue
}

// decodeRefusal is a refusal of the decoder and the fields it is about.
type decodeRefusal struct {
	refusal *guard.Refusal
	fields  fieldSet
}

// The fields of a spec that a decode refusal can be about.
const (
	fieldCluster = iota
	fieldDiskSize
	fieldStorageClass
	fieldTalosSchematicID
	fieldTalosVersion
	fieldTalosImageFactoryURL
	fieldTalosInstallerRepository
	fieldOSImage
	fieldCount
)

// fieldSet is a set of those fields.
type fieldSet uint16

const talosFields = fieldSet(1<<fieldTalosSchematicID | 1<<fieldTalosVersion | 1<<fieldTalosImageFactoryURL | 1<<fieldTalosInstallerRepository)

// fieldsAt is the set of fields the values path fld (as a refusal names
// it) is about: none for a path the spec has no field for
// (talos.registryMirrors, the spec itself), whose refusal always stands.
func fieldsAt(fld string) fieldSet {
	switch fld {
	case "cluster":
		return 1 << fieldCluster
	case "diskSize":
		return 1 << fieldDiskSize
	case "storageClass":
		return 1 << fieldStorageClass
	case "talos":
		return talosFields
	case "talos.schematicID":
		return 1 << fieldTalosSchematicID
	case "talos.version":
		return 1 << fieldTalosVersion
	case "talos.imageFactoryURL":
		return 1 << fieldTalosImageFactoryURL
	case "talos.installerRepository":
		return 1 << fieldTalosInstallerRepository
	}
	if fld == "osImage" || strings.HasPrefix(fld, "osImage.") {
		return 1 << fieldOSImage
	}
	return 0
}

// fieldValue is one field's value, comparable with ==: a string, or an
// OSImage by its contents, so that a change inside it counts.
type fieldValue struct {
	text                    string
	image, builtin, factory bool
	builtinValue            catalog.Flavor
	factoryValue            Factory
}

func (s *PoolSpec) field(i int) fieldValue {
	switch i {
	case fieldCluster:
		return fieldValue{text: s.Cluster}
	case fieldDiskSize:
		return fieldValue{text: s.DiskSize}
	case fieldStorageClass:
		return fieldValue{text: s.StorageClass}
	case fieldTalosSchematicID:
		return fieldValue{text: s.Talos.SchematicID}
	case fieldTalosVersion:
		return fieldValue{text: s.Talos.Version}
	case fieldTalosImageFactoryURL:
		return fieldValue{text: s.Talos.ImageFactoryURL}
	case fieldTalosInstallerRepository:
		return fieldValue{text: s.Talos.InstallerRepository}
	}
	var v fieldValue
	if img := s.OSImage; img != nil {
		v.image = true
		if img.Builtin != nil {
			v.builtin, v.builtinValue = true, *img.Builtin
		}
		if img.Factory != nil {
			v.factory, v.factoryValue = true, *img.Factory
		}
	}
	return v
}

// setDefault writes the chart's default of field i into s (an OSImage
// has none: a refused part of it is left as the decoder left it).
func (s *PoolSpec) setDefault(i int) {
	switch i {
	case fieldCluster:
		s.Cluster = ""
	case fieldDiskSize:
		s.DiskSize = ""
	case fieldStorageClass:
		s.StorageClass = chartdefaults.StorageClass
	case fieldTalosSchematicID:
		s.Talos.SchematicID = chartdefaults.SchematicID
	case fieldTalosVersion:
		s.Talos.Version = chartdefaults.Version
	case fieldTalosImageFactoryURL:
		s.Talos.ImageFactoryURL = chartdefaults.ImageFactoryURL
	case fieldTalosInstallerRepository:
		s.Talos.InstallerRepository = chartdefaults.InstallerRepository
	}
}

// newDecoding records the findings of decoding spec; nil when there are
// none, the spec then being as one built in Go.
func newDecoding(spec *PoolSpec, refusals guard.Refusals, warnings guard.Warnings) *decoding {
	if len(refusals) == 0 && len(warnings) == 0 {
		return nil
	}
	d := &decoding{warnings: warnings}
	for _, r := range refusals {
		d.refusals = append(d.refusals, decodeRefusal{refusal: r, fields: fieldsAt(r.Field)})
	}
	for i := range d.left {
		d.left[i] = spec.field(i)
	}
	return d
}

// judged is the spec Plan plans, with the findings of its decoding that
// still stand: a spec built in Go has none, and is planned as it is.
func (s *PoolSpec) judged() (PoolSpec, guard.Refusals, guard.Warnings) {
	d := s.decoded
	if d == nil {
		return *s, nil, nil
	}
	var edited fieldSet
	for i := range d.left {
		if s.field(i) != d.left[i] {
			edited |= 1 << i
		}
	}
	spec := *s
	var refusals guard.Refusals
	var standing fieldSet
	for _, r := range d.refusals {
		if r.fields&edited == 0 {
			refusals = append(refusals, r.refusal)
			standing |= r.fields
		}
	}
	for i := range fieldCount {
		if standing&(1<<i) != 0 {
			spec.setDefault(i)
		}
	}
	return spec, refusals, d.warnings
}

// refusalsErr is the decoder's refusals as an error, nil when none.
func (d *decoding) refusalsErr() error {
	if d == nil {
		return nil
	}
	rs := make(guard.Refusals, len(d.refusals))
	for i, r := range d.refusals {
		rs[i] = r.refusal
	}
	return rs.Err()
}
