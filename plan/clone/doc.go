// Package clone says what CDI v1.64.0 will do with a DataVolume that
// clones a PVC, before anyone creates it: any KubeVirt controller can ask
// "will this clone finish, and how?" against a snapshot of the cluster.
//
// Plan takes the DataVolume (its source a PVC, spec.source.pvc, or a
// DataSource, spec.sourceRef, which it resolves as CDI does) and returns
// how CDI puts the data into the disk (Method: a CSI clone, a snapshot
// clone, a copy over the pod network, or never, and CDI's reason), whether
// CDI waits for the source, and typed refusals and warnings (package
// guard) at the DataVolume's own fields.
//
// # The guards
//
// These are the guards every golden clone of the library gets, worker
// disks and VM disks alike, in one implementation: the source missing,
// importing or failed; its volume bound to another claim; CDI's default
// class; a class that does not exist or that CDI cannot render (no
// StorageProfile, no claim property set with access modes, under 1MiB);
// a class other than the source's, with its true consequence (a copy
// over the pod network for CDI's reason, or a cross-class CSI clone that
// the driver may refuse or leave pending); each proven cause of a
// host-assisted copy (no CSIDriver, or the DataVolume's
// cdi.kubevirt.io/storage.usePopulator "false"; the strategy copy, no
// VolumeSnapshotClass, different CSI drivers or volume modes, no room to
// expand); the size CDI's clone fails for, with the Filesystem and Block
// rules; a class that binds per node. A source whose PVC is not bound yet
// is judged by the PVC CDI will render for it, marked predicted. What was
// not observed refuses nothing: StateUnverified names the kind.
package clone
