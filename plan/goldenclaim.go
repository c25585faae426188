package plan

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// goldenClaim is the golden's PVC as CDI's clone reads it: the PVC that
// exists, or, before CDI created it (or while PVCs were not observed), the
// one CDI will render from the golden's DataVolume: its request rendered on
// its class, in its StorageProfile's volume mode, as for a disk
// (controller/datavolume/util.go renderPvcSpec). While PVCs were not
// observed its driver is unknown: the PVC may exist, bound to a volume CDI
// reads the driver of.
//
// A golden not bound yet is predicted bound at its request: a provisioner
// binds a claim to a volume of the size it asks for, so its capacity is its
// request, and CDI's clone then compares that capacity with the disk's
// (controller/clone/planner.go validateAdvancedClonePVC). A pool need not
// wait for the import to learn that its clone will copy.
type goldenClaim struct {
	// known: the fields below are what CDI will see.
	known    bool
	request  resource.Quantity
	mode     corev1.PersistentVolumeMode
	capacity resource.Quantity
	// capacityKnown: the PVC exists, is bound and states its capacity, or
	// is predicted bound at its request.
	capacityKnown bool
	// predicted: the golden's PVC is not bound yet (or does not exist):
	// its capacity, and for one CDI has not created yet all of it, is what
	// CDI will make of it.
	predicted bool
	// class is the class the claim names, for its StorageProfile's
	// snapshot class; classNil: it names none at all (nil, not ""), and
	// CDI then reads the Kubernetes default class's profile.
	class    string
	classNil bool
	driver   cdi.Driver
}

// readGoldenClaim fills cl.claim. What it could not read is StateUnverified.
func (p *planner) readGoldenClaim(cl *clone) {
	g := &cl.golden
	c := &cl.claim
	if pvc := g.PVC; pvc != nil {
		c.known = true
		c.request = pvc.Spec.Resources.Requests[corev1.ResourceStorage]
		c.mode = corev1.PersistentVolumeFilesystem
		if m := pvc.Spec.VolumeMode; m != nil && *m == corev1.PersistentVolumeBlock {
			c.mode = corev1.PersistentVolumeBlock
		}
		if q, ok := pvc.Status.Capacity[corev1.ResourceStorage]; ok && pvc.Status.Phase == corev1.ClaimBound {
			c.capacity, c.capacityKnown = q, true
		} else if pvc.Status.Phase != corev1.ClaimBound && !c.request.IsZero() {
			// Not bound yet: predicted bound at its request. (A bound PVC
			// stating no capacity is CDI's "source/target size info
			// missing": it retries, and nothing is predicted.)
			c.capacity, c.capacityKnown, c.predicted = c.request, true, true
		}
		if pvc.Spec.StorageClassName != nil {
			c.class = *pvc.Spec.StorageClassName
		} else {
			c.classNil = true
		}
		c.driver = cdi.ClaimDriver(p.snap, pvc)
		p.unverified |= c.driver.Unobserved
		return
	}
	// The PVC CDI will render for the golden: its DataVolume's request (the
	// entry's before it exists) on its class.
	class := cl.goldenClass.Name
	if class == "" || g.Request.IsZero() {
		return
	}
	r := cdi.Render(p.snap, class, g.Request)
	p.unverified |= r.Unobserved
	if !r.RequestKnown || !r.Renders() {
		return
	}
	c.known, c.predicted = true, true
	c.request, c.mode, c.class = r.Request, r.Mode, class
	c.driver = cdi.ClassDriver(p.snap, class)
	if g.BoundKnown {
		c.capacity, c.capacityKnown = r.Request, true
	} else {
		// The PVC may exist already, with another request, and bound to a
		// volume whose driver (or whose claim reference, on which CDI
		// waits) is what CDI reads: the driver is not the class's until
		// PVCs are seen.
		p.unverified |= state.PersistentVolumeClaim
		c.driver = cdi.Driver{Unobserved: state.PersistentVolumeClaim}
	}
}
