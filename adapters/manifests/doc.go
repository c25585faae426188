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
// objects of the kinds the library reads (StorageClass, CSIDriver,
// PersistentVolumeClaim, PersistentVolume, DataVolume, StorageProfile, CDI,
// CDIConfig, VolumeSnapshotClass, and the consumers of goldens:
// KubevirtMachineTemplate, VirtualMachine, DataSource; the pools,
// KubernetesNodes and HelmRelease, kept unstructured) are decoded into
// their API types, in the version the planner reads (and kubevirt.io/v1alpha3
// VirtualMachines, which KubeVirt serves from its v1 types); objects of any
// other kind are skipped with a Note.
//
// # Rules
//
//   - A file is a full observation: every kind is observed, and a kind with
//     no object in the file is observed as empty. Leaving a kind out of a
//     dump therefore says the cluster has none of it. Read also says
//     which kinds the file held objects of (Result.Held), for a caller
//     that observes only those and the ones its user names
//     (Result.Observed).
//   - An object of a kind the planner reads in a version it does not (a
//     storage.k8s.io/v1beta1 StorageClass) is skipped with a VersionNotRead
//     Note, and its kind is not observed (neither in the State nor by
//     Result.Observed), whatever a caller names: the State lacks an object the cluster has, and a
//     golden it clones would look unused.
//   - Malformed YAML, a document that is not a Kubernetes object (no
//     apiVersion or kind), and an object of a read kind that does not fit
//     its type, fail the whole file with an *Error naming the file and the
//     line in the whole file: a State with an object silently dropped would
//     be a State that lies.
//   - A key twice in one mapping, in YAML or JSON, fails the file with a
//     DuplicateKey *Error at the second copy, as kubectl refuses it:
//     keeping the last copy, as YAMLToJSON and encoding/json do, would read
//     two documents run together (their "---" lost) as the second alone.
//   - An object repeated (in a file or across ReadFiles) is kept as its
//     later copy, with a Superseded note.
//
// # Two paths, one reading
//
// The general path is apimachinery's: YAMLReader cuts the documents,
// sigs.k8s.io/yaml turns each into JSON (YAML 1.1, as kubectl reads it),
// the unstructured decoder and converter make the objects. It is the
// reference, and slow: about 9 MB/s, and twenty times the file in memory.
//
// The fast path reads what kubectl prints at several times that speed, in
// a little more memory than the State it makes: the file is read once,
// line by line, and cut into the items of its Lists (at the left margin in
// YAML, the entries of "items" in JSON); every core decodes items, YAML by
// a transcoder of the subset kubectl prints, JSON checked to mean to YAML
// what it means to JSON, both into the API types through json-iterator;
// each object goes into the State as it is decoded. Whatever the fast path
// does not know (an anchor, a flow mapping, a float, a tab...) it
// declines, and the general path reads that document again, so that every
// error, and its line, is the general path's. A key repeated in a document
// it reads otherwise whole, it refuses itself, as the general path would
// (a 50 MB List is not read twice to say so). FuzzReadAsGeneral holds the
// two to the same State and the same errors.
//
// # What the State keeps
//
// Every object whole, but for what only the API server reads of it: its
// managed fields, owner references, finalizers, uid and resource version.
// Each object has maps of its own (labels, annotations, resource lists):
// changing one object changes no other. Equal short strings are one
// string in memory (20,000 worker disks carry the same labels and
// request), which no one can tell, since a string cannot be changed.
//
// Documents gives the general path's decoding for objects of any kind,
// with their lines, for callers that read other kinds (KubernetesNodes)
// from files.
package manifests
