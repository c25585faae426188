// Package helm is the Helm adapter: it reads chart values the way Helm holds
// them and writes the chart's text, so that a chart, a renderer and the
// planner agree byte for byte.
//
// # Values in
//
// PoolSpec, Pool and CatalogValues read values maps (map[string]any, as
// Helm and sigs.k8s.io/yaml decode them) into the planner's types with the
// charts' defaults of SPEC section 2: an absent or null key takes its
// default, and "" keeps its meaning (SPEC section 9: it falls back where
// Helm's default does, and means the cluster default for storageClass). A
// value of the wrong type, such as a number where a string belongs or a list
// where a map belongs, is refused guard.InvalidValue at its values path
// (osImage.builtin.version, images[2].storage), every one of them at once;
// nothing panics.
//
// # Text out
//
// DiskText writes a pool's disk-system dataVolumeTemplates entry as the
// kubernetes-nodes chart renders it, at a given indentation: on the HTTP
// path byte for byte the pre-feature chart's text, because the
// KubevirtMachineTemplate is named by a hash of its rendered text and any
// drift rolls every live worker; on the clone path the same layout with the
// golden's pvc source and the annotation values quoted. GoldenText writes a
// golden DataVolume document as the catalog chart renders it.
//
// # Schema
//
// Schema is the values.schema.json fragment for osImage and the catalog's
// images[], built from the naming package's patterns, so the schema and the
// planner cannot drift.
//
// # Post-renderer
//
// Verify reads the manifests a chart rendered, finds every
// KubevirtMachineTemplate's disk-system entry and every golden DataVolume,
// and runs the planner's guards on them against the cluster's state, so an
// existing chart gets the guards without changing its templates.
package helm
