// Package diskindex is the index a controller-runtime cache keeps of the
// worker disks, so that a pool's plan reads its own disks rather than its
// namespace's every DataVolume and PVC: each disk under its pool
// annotation, when it also carries a golden annotation (a disk without
// both proves no clone, so a plan never reads it).
//
// The index is read in one namespace at a time: a disk is indexed under
// its namespace and pool only. controller-runtime's own field indices
// (IndexField) index each value a second time for a list across every
// namespace, which no plan makes: at 100,000 disks that second entry is
// about 10 MiB of each cache.
package diskindex

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// Field names the index in a field selector: a list matching Field = a
// pool's CAPI name, in the pool's namespace, is the pool's disks. A list
// across every namespace matches none.
const Field = "kubernetes-worker-image.cozystack.io/pool-disks"

// indexName and indexValue are the index's name on an informer and a
// disk's value in it, as controller-runtime's cache reads a field index
// for a list in one namespace (pkg/cache/internal/cache_reader.go:
// byIndexes, FieldIndexName and KeyToNamespacedKey).
const indexName = "field:" + Field

func indexValue(namespace, pool string) string { return namespace + "/" + pool }

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
		if err := Index(ctx, c, k.obj); err != nil && !meta.IsNoMatchError(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Index adds the index to the informer of obj's kind (a DataVolume or a
// PVC) of c, starting it if need be; an informer that has it already
// fails to add it again.
func Index(ctx context.Context, c cache.Informers, obj client.Object) error {
	inf, err := c.GetInformer(ctx, obj)
	if err != nil {
		return err
	}
	return inf.AddIndexers(toolscache.Indexers{indexName: byPool})
}

// Lookup is the items of an informer's store (its indexer) indexed under
// pool in namespace ns: an error when the store has no such index.
func Lookup(idx toolscache.Indexer, ns, pool string) ([]any, error) {
	return idx.ByIndex(indexName, indexValue(ns, pool))
}

// byPool is a disk's values in the index: its namespace and Of, none for
// anything else.
func byPool(obj any) ([]string, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return nil, nil
	}
	pools := Of(o)
	if len(pools) == 0 {
		return nil, nil
	}
	return []string{indexValue(o.GetNamespace(), pools[0])}, nil
}

// Cache is what Add needs of a cache.
type Cache interface {
	cache.Informers
	client.Reader
}
