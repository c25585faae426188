package plan

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// goldenClaim is the golden's PVC as CDI's clone reads it: the PVC that
// exists, or, before CDI created it (or while PVCs were not observed), the
// one CDI will render from the golden's DataVolume (its request, on its
// class) (SPEC section 10). While PVCs were not observed its driver is
// unknown: the PVC may exist, bound to a volume CDI reads the driver of.
type goldenClaim struct {
	// known: the fields below are what CDI will see.
	known    bool
	request  resource.Quantity
	mode     corev1.PersistentVolumeMode
	capacity resource.Quantity
	// capacityKnown: the PVC exists, is bound and states its capacity.
	capacityKnown bool
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
	c.known = true
	c.request, c.mode, c.class = r.Request, r.Mode, class
	c.driver = cdi.ClassDriver(p.snap, class)
	if !g.BoundKnown {
		// The PVC may exist already, with another request, and bound to a
		// volume whose driver (or whose claim reference, on which CDI
		// waits) is what CDI reads: the driver is not the class's until
		// PVCs are seen.
		p.unverified |= state.PersistentVolumeClaim
		c.driver = cdi.Driver{Unobserved: state.PersistentVolumeClaim}
	}
}
