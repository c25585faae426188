// Package manifests reads cluster state from Kubernetes objects in YAML,
// exactly as kubectl get -o yaml (or -o json) prints them, into the
// planner's state.State: for an operator at a terminal, a CI job, or any
// place that has a dump of the cluster but no access to it.
//
// # Input
//
// A file holds a List (kind List, or a typed list such as
// StorageClassList whose items leave apiVersion and kind to the list), or
// "---"-separated documents, or both, in any order and mixing kinds. The
// objects of the kinds the planner reads (StorageClass, CSIDriver,
// PersistentVolumeClaim, DataVolume, StorageProfile, CDI) are decoded into
// their API types with apimachinery's decoders; objects of any other kind
// or version are skipped with a Note.
//
// # Rules
//
//   - A file is a full observation: every kind is observed, and a kind with
//     no object in the file is observed as empty. Leaving a kind out of a
//     dump therefore says the cluster has none of it.
//   - Malformed YAML, a document that is not a Kubernetes object (no
//     apiVersion or kind), and an object of a read kind that does not fit
//     its type, fail the whole file with an *Error naming the file and the
//     line in the whole file: a State with an object silently dropped would
//     be a State that lies.
//   - An object repeated (in a file or across ReadFiles) is kept as its
//     later copy, with a Superseded note.
//
// Documents gives the same decoding for objects of any kind, with their
// lines, for callers that read other kinds (KubernetesNodes) from files.
package manifests
