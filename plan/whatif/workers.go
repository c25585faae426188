package whatif

import (
	"strings"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A pool's workers are counted from their disks. Each worker VM's disk
// carries its machine's name: CAPI names a MachineSet "<MachineDeployment>-
// <suffix>" and its Machines "<MachineSet>-<suffix>", the pool's
// MachineDeployment is its CAPI name (kubernetes-<cluster>-<pool>), and
// CAPK prefixes each dataVolumeTemplate with its VM's (the Machine's) name:
// "kubernetes-demo-md0-6b7f9-x2kqz-disk-system". A disk the clone path
// made also carries the pool's annotation.

// diskSuffix ends the name of every worker's system disk.
const diskSuffix = "-" + plan.DiskName

// workerIndex counts, per namespace and pool CAPI name, the pool's worker
// disks: DataVolumes and PVCs merged by name.
type workerIndex map[stateindex.Key]int

// indexWorkers counts every worker disk of the snapshot: each PVC, and
// each DataVolume whose PVC is not there (CDI has not made it yet).
func indexWorkers(snap *state.Snapshot) workerIndex {
	idx := workerIndex{}
	add := func(ns, name string, annotations map[string]string) {
		pool := annotations[naming.PoolAnnotation]
		if pool == "" {
			pool = deploymentOf(name)
		}
		if pool != "" {
			idx[stateindex.Key{Namespace: ns, Name: pool}]++
		}
	}
	ix := stateindex.Of(snap)
	for pvc := range ix.PersistentVolumeClaims() {
		add(pvc.Namespace, pvc.Name, pvc.Annotations)
	}
	for dv := range ix.DataVolumes() {
		if ix.PVC(dv.Namespace, dv.Name) == nil {
			add(dv.Namespace, dv.Name, dv.Annotations)
		}
	}
	return idx
}

// deploymentOf is the MachineDeployment a worker disk's name places it in,
// "" for a name that is not "<deployment>-<set>-<machine>-disk-system".
func deploymentOf(disk string) string {
	machine, ok := strings.CutSuffix(disk, diskSuffix)
	if !ok {
		return ""
	}
	for range 2 {
		i := strings.LastIndexByte(machine, '-')
		if i <= 0 || i == len(machine)-1 {
			return ""
		}
		machine = machine[:i]
	}
	return machine
}

// workers is how many workers the pool runs, from its disks, and whether
// that is known: the pool's DataVolumes and PVCs must have been observed
// in its namespace (a disk is known by either).
func (idx workerIndex) workers(snap *state.Snapshot, namespace, name string) (int, bool) {
	if !stateindex.Of(snap).CoversNamespace(state.DataVolume, namespace) || !stateindex.Of(snap).CoversNamespace(state.PersistentVolumeClaim, namespace) {
		return 0, false
	}
	return idx[stateindex.Key{Namespace: namespace, Name: naming.PoolCAPIName(name)}], true
}
