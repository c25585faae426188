package plan

import (
	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// checkHostAssisted refuses every proven cause for which CDI would pick the
// host-assisted copy over the pod network instead of a storage-layer clone.
// What is unknown refuses nothing.
func (p *planner) checkHostAssisted(cl *clone) {
	class := cl.workerClass.Name
	copyCause := func(format string, args ...any) {
		p.c.Refuse(guard.HostAssistedClone, pathStorageClass, class,
			"CDI would copy golden %s over the pod network instead of cloning it at the storage layer: "+format, append([]any{cl.golden.Name}, args...)...)
	}
	strategy, from := p.cloneStrategy(class)
	if strategy == cdiv1.CloneStrategyHostAssisted {
		copyCause("%s sets cloneStrategy copy; set it to csi-clone or snapshot", from)
	}
	sc := p.snap.StorageClass(class)
	switch {
	case !p.snap.Observed(state.StorageClass):
		p.unverified |= state.StorageClass
		if !p.snap.Observed(state.CSIDriver) {
			p.unverified |= state.CSIDriver
		}
	case sc == nil:
	case !p.snap.Observed(state.CSIDriver):
		p.unverified |= state.CSIDriver
	case p.snap.CSIDriver(sc.Provisioner) == nil:
		copyCause("class %q's provisioner %q has no CSIDriver, so it cannot clone volumes; use a class of a CSI driver", class, sc.Provisioner)
	}
	if sc != nil && cl.sizeOK && cl.golden.BoundKnown {
		// With the golden's PVC unseen its capacity may be the larger
		// size; checkSize already says PVCs were not observed.
		gs := cl.golden.Size()
		if !gs.IsZero() && cl.size.Cmp(gs) > 0 && (sc.AllowVolumeExpansion == nil || !*sc.AllowVolumeExpansion) {
			copyCause("the disk (%s) is larger than the golden (%s) and class %q does not allow volume expansion; set allowVolumeExpansion: true on it, or set diskSize to %s",
				p.diskSize(), gs.String(), class, gs.String())
		}
	}
	p.checkVolumeMode(cl, copyCause)
}

// cloneStrategy is CDI's order: the CDI resource's override, else the
// class's StorageProfile (spec, else status). It returns "" when unknown.
func (p *planner) cloneStrategy(class string) (cdiv1.CDICloneStrategy, string) {
	if !p.snap.Observed(state.CDI) {
		// The override, if any, would overrule the profile: a profile's
		// copy proves nothing while the override is unknown.
		p.unverified |= state.CDI
		if !p.snap.Observed(state.StorageProfile) {
			p.unverified |= state.StorageProfile
		}
		return "", ""
	} else if c := p.snap.CDI(); c != nil && c.Spec.CloneStrategyOverride != nil {
		return *c.Spec.CloneStrategyOverride, "the CDI resource " + c.Name + "'s cloneStrategyOverride"
	}
	if !p.snap.Observed(state.StorageProfile) {
		p.unverified |= state.StorageProfile
		return "", ""
	}
	sp := p.snap.StorageProfile(class)
	if sp == nil {
		return "", ""
	}
	from := "StorageProfile " + sp.Name
	if s := sp.Spec.CloneStrategy; s != nil {
		return *s, from + " (spec)"
	}
	if s := sp.Status.CloneStrategy; s != nil {
		return *s, from + " (status)"
	}
	return "", ""
}

// checkVolumeMode compares the mode CDI will pick for the disk (the
// StorageProfile's first claim property set) with the golden PVC's.
func (p *planner) checkVolumeMode(cl *clone, copyCause func(string, ...any)) {
	g := cl.golden.PVC // unseen, checkSize already says PVCs were not observed
	if !p.snap.Observed(state.StorageProfile) {
		p.unverified |= state.StorageProfile // the mode CDI will pick is the profile's
		return
	}
	if g == nil {
		return
	}
	sp := p.snap.StorageProfile(cl.workerClass.Name)
	if sp == nil {
		return
	}
	sets := sp.Status.ClaimPropertySets
	if len(sets) == 0 {
		sets = sp.Spec.ClaimPropertySets
	}
	disk := corev1.PersistentVolumeFilesystem
	if len(sets) > 0 && sets[0].VolumeMode != nil {
		disk = *sets[0].VolumeMode
	}
	golden := corev1.PersistentVolumeFilesystem
	if g.Spec.VolumeMode != nil {
		golden = *g.Spec.VolumeMode
	}
	if disk != golden {
		copyCause("the disk would be %s (StorageProfile %s) while the golden's PVC is %s; align the StorageProfile's claimPropertySets with the golden's volume mode", disk, sp.Name, golden)
	}
}
