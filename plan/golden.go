package plan

import (
	"fmt"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// goldenStatus refuses or warns on the golden's presence and import. A pool
// that has already cloned its golden is never refused for it: its running
// workers are fine, and a refusal would abort its whole release.
func (p *planner) goldenStatus(cl *clone) {
	g := &cl.golden
	switch g.Presence {
	case golden.Unobserved:
		p.unverified |= p.missingKinds(naming.GoldenNamespace, g.Name)
		return
	case golden.Absent:
		switch {
		case cl.alreadyCloned && !cl.managed:
			// GoldenUnavailable already says it is not served.
		case cl.alreadyCloned:
			p.c.Warn(guard.GoldenUnavailable, pathBuiltin,
				"golden %s is missing; the pool's running workers are fine, but new workers will not boot until it is re-created from its catalog entry", g.Name)
		case cl.managed:
			p.c.Warn(guard.GoldenPending, pathBuiltin,
				"golden %s is not created yet; CDI holds the worker disks until it is imported", g.Name)
		}
		return
	}
	switch g.Import {
	case golden.ImportUnknown:
		p.unverified |= state.DataVolume
	case golden.Importing:
		p.c.Warn(guard.GoldenPending, pathBuiltin,
			"golden %s is still importing (phase %q); CDI holds the worker disks until it succeeds", g.Name, g.DataVolume.Status.Phase)
	case golden.Stalled:
		p.c.Warn(guard.GoldenImportStalled, pathBuiltin,
			"golden %s is importing but failing (%s); check its importer pod in %s", g.Name, importDetail(g.DataVolume), naming.GoldenNamespace)
	case golden.Failed:
		switch {
		case cl.alreadyCloned && !cl.managed:
			// GoldenUnavailable already says it is not served.
		case cl.alreadyCloned:
			p.c.Warn(guard.GoldenUnavailable, pathBuiltin,
				"golden %s failed to import (%s); the pool's running workers are fine, but new workers will not boot until it is re-imported", g.Name, importDetail(g.DataVolume))
		default:
			p.c.Refuse(guard.GoldenImportFailed, pathBuiltin, g.Name,
				"golden %s failed to import (%s); fix the image source and re-create the golden, or pick another flavor", g.Name, importDetail(g.DataVolume))
		}
	}
}

func importDetail(dv *cdiv1.DataVolume) string {
	s := fmt.Sprintf("phase %q, %d importer restarts", dv.Status.Phase, dv.Status.RestartCount)
	for _, c := range dv.Status.Conditions {
		if c.Type == cdiv1.DataVolumeRunning && c.Reason != "" {
			s += ", Running " + string(c.Status) + " " + c.Reason
		}
	}
	return s
}

// missingKinds lists which of DataVolume and PVC were not observed for an
// object.
func (p *planner) missingKinds(ns, name string) state.Kind {
	var k state.Kind
	if !stateindex.Of(p.snap).Covers(state.DataVolume, ns, name) {
		k |= state.DataVolume
	}
	if !stateindex.Of(p.snap).Covers(state.PersistentVolumeClaim, ns, name) {
		k |= state.PersistentVolumeClaim
	}
	return k
}

// checkGoldenBound warns GoldenPending while a golden that is otherwise
// populated has a PVC that is not bound, or that states no capacity: CDI's
// clone retries and the disk waits (controller/clone/planner.go
// validateAdvancedClonePVC, "source/target size info missing";
// controller/clone/common.go IsSourceClaimReady). A golden whose
// DataVolume succeeded while its PVC is gone has no source at all: CDI
// holds the disk with CloneWithoutSource until the PVC is back
// (controller/datavolume/pvc-clone-controller.go
// validateCloneAndSourcePVC). A golden still importing has said
// GoldenPending already.
func (p *planner) checkGoldenBound(cl *clone) {
	g := &cl.golden
	if g.Import != golden.Populated {
		return
	}
	if g.PVC == nil {
		if g.DataVolume != nil && g.BoundKnown {
			p.c.Warn(guard.GoldenPending, pathBuiltin,
				"golden %s's DataVolume succeeded but its PVC is gone: CDI re-creates the PVC from the DataVolume, and the worker disks wait (CloneWithoutSource) until it is populated again", g.Name)
		}
		return
	}
	if cl.claim.capacityKnown && !cl.claim.predicted {
		return
	}
	p.c.Warn(guard.GoldenPending, pathBuiltin,
		"golden %s's PVC is not bound with a capacity (phase %q); CDI retries the clone and the worker disks wait until it is", g.Name, g.PVC.Status.Phase)
}
