package cloneguard

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// readClaim fills j.claim. What it could not read is StateUnverified.
func (j *judge) readClaim() {
	g := &j.v.Source
	c := &j.claim
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
		c.driver = cdi.ClaimDriver(j.snap, pvc)
		j.v.Unverified |= c.driver.Unobserved
		return
	}
	if !g.BoundKnown {
		// PVCs were not observed: the PVC may exist already, with another
		// request and bound to a volume whose driver (or whose claim
		// reference, on which CDI waits) is what CDI reads, whether or not
		// a prediction below can be made.
		j.v.Unverified |= state.PersistentVolumeClaim
	}
	// The PVC CDI will render for the source: its DataVolume's request (the
	// entry's before it exists) on its class.
	class := j.v.SourceClass.Name
	if class == "" || g.Request.IsZero() {
		return
	}
	r := cdi.Render(j.snap, class, g.Request)
	j.v.Unverified |= r.Unobserved
	if !r.RequestKnown || !r.Renders() {
		return
	}
	c.known, c.predicted = true, true
	c.request, c.mode, c.class = r.Request, r.Mode, class
	c.driver = cdi.ClassDriver(j.snap, class)
	if g.BoundKnown {
		c.capacity, c.capacityKnown = r.Request, true
	} else {
		// The driver is not the class's until PVCs are seen (above).
		c.driver = cdi.Driver{Unobserved: state.PersistentVolumeClaim}
	}
}
