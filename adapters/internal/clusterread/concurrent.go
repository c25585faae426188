package clusterread

import (
	"sync"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// inParallel runs fn(0) … fn(n-1), at most parallel of them at once (one at a
// time when parallel is under 2), and returns when every one has.
func inParallel(n, parallel int, fn func(i int)) {
	if parallel < 2 || n < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(parallel, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// appendState appends the objects of src to those of dst (taking src's
// slices where dst has none, so that a list of 100,000 disks read into a
// State of its own is not copied).
func appendState(dst, src *state.State) {
	dst.StorageClasses = join(dst.StorageClasses, src.StorageClasses)
	dst.PersistentVolumeClaims = join(dst.PersistentVolumeClaims, src.PersistentVolumeClaims)
	dst.DataVolumes = join(dst.DataVolumes, src.DataVolumes)
	dst.StorageProfiles = join(dst.StorageProfiles, src.StorageProfiles)
	dst.CDIs = join(dst.CDIs, src.CDIs)
	dst.CSIDrivers = join(dst.CSIDrivers, src.CSIDrivers)
	dst.VolumeSnapshotClasses = join(dst.VolumeSnapshotClasses, src.VolumeSnapshotClasses)
	dst.CDIConfigs = join(dst.CDIConfigs, src.CDIConfigs)
	dst.PersistentVolumes = join(dst.PersistentVolumes, src.PersistentVolumes)
	dst.KubevirtMachineTemplates = join(dst.KubevirtMachineTemplates, src.KubevirtMachineTemplates)
	dst.VirtualMachines = join(dst.VirtualMachines, src.VirtualMachines)
	dst.DataSources = join(dst.DataSources, src.DataSources)
	dst.KubernetesNodes = join(dst.KubernetesNodes, src.KubernetesNodes)
	dst.HelmReleases = join(dst.HelmReleases, src.HelmReleases)
}

func join[T any](dst, src []T) []T {
	if len(dst) == 0 {
		return src
	}
	return append(dst, src...)
}
