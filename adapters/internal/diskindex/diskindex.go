// Package diskindex is the index a controller-runtime cache keeps of the
// worker disks, so that a pool's plan reads its own disks rather than its
// namespace's every DataVolume and PVC: each disk under its pool
// annotation, when it also carries a golden annotation (a disk without
// both proves no clone, so a plan never reads it).
package diskindex

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// Field names the index in a field selector: a list matching Field = a
// pool's CAPI name, in the pool's namespace, is the pool's disks.
const Field = "kubernetes-worker-image.cozystack.io/pool-disks"

// Of is the value a disk is indexed under: its pool annotation when it
// carries a golden annotation too, none otherwise.
func Of(o client.Object) []string {
	a := o.GetAnnotations()
	pool := a[naming.PoolAnnotation]
	if pool == "" || a[naming.GoldenAnnotation] == "" {
		return nil
	}
	return []string{pool}
}

// Add indexes the DataVolumes and PVCs of c (a cache) by Of, starting
// their informers if need be, unless c has the index already (a first
// read added it). A kind the server does not serve is skipped.
func Add(ctx context.Context, c Cache) error {
	var errs []error
	for _, k := range []struct {
		obj  client.Object
		list client.ObjectList
	}{{&cdiv1.DataVolume{}, &cdiv1.DataVolumeList{}}, {&corev1.PersistentVolumeClaim{}, &corev1.PersistentVolumeClaimList{}}} {
		err := c.List(ctx, k.list, client.MatchingFields{Field: ""}, client.UnsafeDisableDeepCopy)
		if err == nil || meta.IsNoMatchError(err) {
			continue
		}
		if err := c.IndexField(ctx, k.obj, Field, Of); err != nil && !meta.IsNoMatchError(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Cache is what Add needs of a cache.
type Cache interface {
	client.FieldIndexer
	client.Reader
}
