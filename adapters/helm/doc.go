// Package helm is the Helm adapter: it writes the charts' text, so that a
// chart, a renderer and the planner agree byte for byte. Values come in
// through the planner's own decoders, plan.DecodePool and
// catalog.DecodeValues, which read them as Helm holds them.
//
// # Text out
//
// PlanEntry is a renderer's one call: values in, the pool's plan and its
// disk-system entry's text out (PlanEntries for a fleet), without building
// the DataVolume object. DiskText writes a pool's disk-system dataVolumeTemplates entry as the
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
