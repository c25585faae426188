package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// countingCache answers every List with one object named after the
// number of lists it has answered.
type countingCache struct {
	cache.Cache
	lists int
}

func (c *countingCache) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	c.lists++
	obj := map[string]client.Object{
		"*v1.StorageClassList":          &storagev1.StorageClass{},
		"*v1beta1.StorageProfileList":   &cdiv1.StorageProfile{},
		"*v1beta1.CDIList":              &cdiv1.CDI{},
		"*v1beta1.CDIConfigList":        &cdiv1.CDIConfig{},
		"*v1.CSIDriverList":             &storagev1.CSIDriver{},
		"*v1.VolumeSnapshotClassList":   &snapshotv1.VolumeSnapshotClass{},
		"*v1.PersistentVolumeClaimList": &corev1.PersistentVolumeClaim{},
	}[typeString(list)]
	obj.SetName(string(rune('a' + c.lists)))
	return meta.SetList(list, []runtime.Object{obj})
}

// TestSharedCacheLists checks each shared kind's list: read once between
// two changes, its items handed to every caller, read again after a
// change; a list of another kind, or one asking for copies, is the
// cache's every time.
func TestSharedCacheLists(t *testing.T) {
	ctx := context.Background()
	for _, l := range []func() client.ObjectList{
		func() client.ObjectList { return &storagev1.StorageClassList{} },
		func() client.ObjectList { return &cdiv1.StorageProfileList{} },
		func() client.ObjectList { return &cdiv1.CDIList{} },
		func() client.ObjectList { return &cdiv1.CDIConfigList{} },
		func() client.ObjectList { return &storagev1.CSIDriverList{} },
		func() client.ObjectList { return &snapshotv1.VolumeSnapshotClassList{} },
	} {
		under := &countingCache{}
		ep := &epoch{now: time.Now}
		c := &sharedCache{Cache: under, epoch: ep}
		name := func() string {
			list := l()
			require.NoError(t, c.List(ctx, list, client.UnsafeDisableDeepCopy))
			items, err := meta.ExtractList(list)
			require.NoError(t, err)
			require.Len(t, items, 1, typeString(list))
			return items[0].(metav1.Object).GetName()
		}
		first := name()
		require.Equal(t, first, name(), "%s: shared until a change", typeString(l()))
		require.Equal(t, 1, under.lists, typeString(l()))
		ep.changed()
		require.NotEqual(t, first, name(), "%s: read again after a change", typeString(l()))
		require.Equal(t, 2, under.lists, typeString(l()))
		// Asking for copies is the cache's every time.
		require.NoError(t, c.List(ctx, l()))
		require.Equal(t, 3, under.lists, typeString(l()))
	}
	under := &countingCache{}
	c := &sharedCache{Cache: under, epoch: &epoch{now: time.Now}}
	for range 2 {
		require.NoError(t, c.List(ctx, &corev1.PersistentVolumeClaimList{}, client.UnsafeDisableDeepCopy))
	}
	require.Equal(t, 2, under.lists, "a PVC list is never shared")
}

func typeString(o any) string { return fmt.Sprintf("%T", o) }
