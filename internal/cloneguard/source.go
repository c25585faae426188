package cloneguard

import (
	"fmt"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// sourceStatus refuses or warns on the source's presence and import. CDI
// holds a clone until its source is populated, whatever the importer's
// restarts, and for good once it failed (CDI v1.64.0
// pkg/controller/datavolume/pvc-clone-controller.go: isSourceReadyToClone;
// pkg/controller/common/util.go: IsPopulated). A pool that has already
// cloned its golden is never refused for it: its running workers are fine,
// and a refusal would abort its whole release. A source that does not
// exist and that nothing says will (no Expected, not Managed) is the
// caller's to judge when a catalog decides it (Catalogued): the catalog
// that serves no such golden refuses it. Any other source may come, and
// CDI waits for it.
func (j *judge) sourceStatus() {
	g := &j.v.Source
	r := &j.req
	w := &r.Words
	p := r.Paths.Source
	switch g.Presence {
	case golden.Unobserved:
		j.v.Unverified |= j.missingKinds()
		return
	case golden.Absent:
		j.v.Waits = true
		switch {
		case r.AlreadyCloned && !r.Managed:
			// GoldenUnavailable already says it is not served.
		case r.AlreadyCloned:
			j.c.Warn(guard.GoldenUnavailable, p,
				"golden %s is missing; the pool's running workers are fine, but new workers will not boot until it is re-created from its catalog entry", g.Name)
		case r.Managed:
			j.c.Warn(guard.GoldenPending, p,
				"%s is not created yet; CDI holds %s until it is imported", j.source(), w.Disks)
		case !r.Catalogued:
			j.c.Warn(guard.GoldenPending, p,
				"%s does not exist yet; CDI holds %s until it does (CloneWithoutSource)", j.source(), w.Disks)
		}
		return
	}
	switch g.Import {
	case golden.ImportUnknown:
		j.v.Unverified |= state.DataVolume
	case golden.Importing:
		j.v.Waits = true
		j.c.Warn(guard.GoldenPending, p,
			"%s is still importing (phase %q); CDI holds %s until it succeeds", j.source(), g.DataVolume.Status.Phase, w.Disks)
	case golden.Stalled:
		j.v.Waits = true
		j.c.Warn(guard.GoldenImportStalled, p,
			"%s is importing but failing (%s); check its importer pod in %s", j.source(), importDetail(g.DataVolume), r.Source.Namespace)
	case golden.Failed:
		switch {
		case r.AlreadyCloned && !r.Managed:
			// GoldenUnavailable already says it is not served.
		case r.AlreadyCloned:
			j.c.Warn(guard.GoldenUnavailable, p,
				"golden %s failed to import (%s); the pool's running workers are fine, but new workers will not boot until it is re-imported", g.Name, importDetail(g.DataVolume))
		default:
			j.c.Refuse(guard.GoldenImportFailed, p, g.Name,
				"%s failed to import (%s); fix the image source and re-create the %s%s", j.source(), importDetail(g.DataVolume), j.noun(), w.OtherSource)
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

// missingKinds lists which of DataVolume and PVC were not observed for the
// source.
func (j *judge) missingKinds() state.Kind {
	s := j.req.Source
	var k state.Kind
	if !j.ix.Covers(state.DataVolume, s.Namespace, s.Name) {
		k |= state.DataVolume
	}
	if !j.ix.Covers(state.PersistentVolumeClaim, s.Namespace, s.Name) {
		k |= state.PersistentVolumeClaim
	}
	return k
}

// missingNamespaceKinds lists which of DataVolume and PVC were not
// observed in the disk's namespace.
func (j *judge) missingNamespaceKinds() state.Kind {
	ns := j.req.Namespace
	var k state.Kind
	if !j.ix.CoversNamespace(state.DataVolume, ns) {
		k |= state.DataVolume
	}
	if !j.ix.CoversNamespace(state.PersistentVolumeClaim, ns) {
		k |= state.PersistentVolumeClaim
	}
	return k
}

// checkBound warns GoldenPending while a source that is otherwise
// populated has a PVC that is not bound, or that states no capacity: CDI's
// clone retries and the disk waits (CDI v1.64.0
// pkg/controller/clone/planner.go: validateAdvancedClonePVC, "source/target
// size info missing"; pkg/controller/clone/common.go: IsSourceClaimReady).
// A source whose DataVolume succeeded while its PVC is gone has no source
// at all: CDI holds the disk with CloneWithoutSource until the PVC is back
// (pkg/controller/datavolume/pvc-clone-controller.go:
// validateCloneAndSourcePVC). A source still importing has said
// GoldenPending already.
func (j *judge) checkBound() {
	g := &j.v.Source
	if g.Import != golden.Populated {
		return
	}
	if g.PVC == nil {
		if g.DataVolume != nil && g.BoundKnown {
			j.v.Waits = true
			j.c.Warn(guard.GoldenPending, j.req.Paths.Source,
				"%s's DataVolume succeeded but its PVC is gone: CDI re-creates the PVC from the DataVolume, and %s %s (CloneWithoutSource) until it is populated again", j.source(), j.req.Words.Disks, wait(j.req.Words.Disks))
		}
		return
	}
	if j.claim.capacityKnown && !j.claim.predicted {
		return
	}
	j.v.Waits = true
	j.c.Warn(guard.GoldenPending, j.req.Paths.Source,
		"%s's PVC is not bound with a capacity (phase %q); CDI retries the clone and %s %s until it is", j.source(), g.PVC.Status.Phase, j.req.Words.Disks, wait(j.req.Words.Disks))
}

// wait is the verb for what waits: "the worker disks wait", "the disk
// waits".
func wait(disks string) string {
	if len(disks) > 0 && disks[len(disks)-1] == 's' {
		return "wait"
	}
	return "waits"
}
