package clusterread

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/diskindex"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// memory is a Source over a State that observed everything; indexed, it
// is a DiskSource whose index is diskindex's. It counts the disks it
// hands out.
type memory struct {
	st      *state.State
	indexed bool
	disks   int
}

func each[T any, P interface {
	*T
	client.Object
}](objs []T, ns, name string, keep func(P) bool, add func(T)) int {
	n := 0
	for i := range objs {
		o := P(&objs[i])
		if (ns == "" || o.GetNamespace() == ns) && (name == "" || o.GetName() == name) && keep(o) {
			add(objs[i])
			n++
		}
	}
	return n
}

func (m *memory) read(k state.Kind, ns, name string, keep func(client.Object) bool, into *state.State) int {
	s := m.st
	switch k {
	case state.StorageClass:
		return each(s.StorageClasses, ns, name, func(o *storagev1.StorageClass) bool { return keep(o) }, func(o storagev1.StorageClass) { into.StorageClasses = append(into.StorageClasses, o) })
	case state.PersistentVolumeClaim:
		return each(s.PersistentVolumeClaims, ns, name, func(o *corev1.PersistentVolumeClaim) bool { return keep(o) }, func(o corev1.PersistentVolumeClaim) {
			into.PersistentVolumeClaims = append(into.PersistentVolumeClaims, o)
		})
	case state.DataVolume:
		return each(s.DataVolumes, ns, name, func(o *cdiv1.DataVolume) bool { return keep(o) }, func(o cdiv1.DataVolume) { into.DataVolumes = append(into.DataVolumes, o) })
	case state.StorageProfile:
		return each(s.StorageProfiles, ns, name, func(o *cdiv1.StorageProfile) bool { return keep(o) }, func(o cdiv1.StorageProfile) { into.StorageProfiles = append(into.StorageProfiles, o) })
	case state.CDI:
		return each(s.CDIs, ns, name, func(o *cdiv1.CDI) bool { return keep(o) }, func(o cdiv1.CDI) { into.CDIs = append(into.CDIs, o) })
	case state.CSIDriver:
		return each(s.CSIDrivers, ns, name, func(o *storagev1.CSIDriver) bool { return keep(o) }, func(o storagev1.CSIDriver) { into.CSIDrivers = append(into.CSIDrivers, o) })
	case state.VolumeSnapshotClass:
		return each(s.VolumeSnapshotClasses, ns, name, func(o *snapshotv1.VolumeSnapshotClass) bool { return keep(o) }, func(o snapshotv1.VolumeSnapshotClass) {
			into.VolumeSnapshotClasses = append(into.VolumeSnapshotClasses, o)
		})
	case state.CDIConfig:
		return each(s.CDIConfigs, ns, name, func(o *cdiv1.CDIConfig) bool { return keep(o) }, func(o cdiv1.CDIConfig) { into.CDIConfigs = append(into.CDIConfigs, o) })
	case state.PersistentVolume:
		return each(s.PersistentVolumes, ns, name, func(o *corev1.PersistentVolume) bool { return keep(o) }, func(o corev1.PersistentVolume) { into.PersistentVolumes = append(into.PersistentVolumes, o) })
	}
	return 0
}

func all(client.Object) bool { return true }

func (m *memory) List(_ context.Context, k state.Kind, ns string, into *state.State) error {
	n := m.read(k, ns, "", all, into)
	if diskKinds.Has(k) {
		m.disks += n
	}
	return nil
}

func (m *memory) Get(_ context.Context, k state.Kind, ns, name string, into *state.State) error {
	if m.read(k, ns, name, all, into) == 0 {
		return apierrors.NewNotFound(schema.GroupResource{Resource: k.String()}, name)
	}
	if diskKinds.Has(k) {
		m.disks++
	}
	return nil
}

func (m *memory) ListDisks(_ context.Context, k state.Kind, ns string, pools []string, into *state.State) (bool, error) {
	if !m.indexed {
		return false, nil
	}
	m.disks += m.read(k, ns, "", func(o client.Object) bool {
		v := diskindex.Of(o)
		return len(v) == 1 && slices.Contains(pools, v[0])
	}, into)
	return true, nil
}

// TestPoolDisksPlanAsTheNamespace: a pool planned over its own disks,
// read through the index with their counterparts by name, is planned as
// over its namespace's every disk: the same refusals, warnings, class and
// disk. The disks' annotations are drawn on both objects of a disk, on
// its DataVolume alone (its PVC on any class) or on its PVC alone (CDI
// need not copy them).
func TestPoolDisksPlanAsTheNamespace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := plantest.Scenarios(plantest.Options{FullyObserved: true}).Draw(t, "scenario")
		st := plantest.CopyState(s.State)
		for i := range st.PersistentVolumeClaims {
			p := &st.PersistentVolumeClaims[i]
			if p.Namespace != naming.GoldenNamespace && rapid.IntRange(0, 3).Draw(t, "stripClaim") == 0 {
				// Its class, not its DataVolume's, is the disk's.
				p.Annotations = nil
				p.Spec.StorageClassName = ptr.To(rapid.SampledFrom(s.Vocabulary.Classes).Draw(t, "strippedClaimClass"))
			}
		}
		for i := range st.DataVolumes {
			d := &st.DataVolumes[i]
			if d.Namespace != naming.GoldenNamespace && rapid.IntRange(0, 3).Draw(t, "stripDataVolume") == 0 {
				d.Annotations = nil
			}
		}
		cat := catalog.Compile(s.Catalog)
		for _, pool := range s.Pools {
			need := plan.Needs(pool)
			whole, err := Read(context.Background(), &memory{st: st}, need, 0)
			require.NoError(t, err)
			own := &memory{st: st, indexed: true}
			narrow, err := Read(context.Background(), own, need, 0)
			require.NoError(t, err)
			want, _ := plan.Plan(pool, cat, state.NewSnapshot(whole))
			got, _ := plan.Plan(pool, cat, state.NewSnapshot(narrow))
			assert.Equal(t, want, got, "pool %s/%s", pool.Namespace, pool.Name)
		}
	})
}

// TestPoolDisksReadAlone: of a namespace of many pools' disks, a pool's
// plan reads its own and the counterpart of one whose PVC lost its
// annotations; a reader without the index reads them all.
func TestPoolDisksReadAlone(t *testing.T) {
	const ns = "tenant-crowded"
	pool := plan.Pool{Namespace: ns, Name: "c-md0", Spec: plan.DefaultPoolSpec("c")}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}
	st := &state.State{}
	disk := func(name, pool string) {
		a := map[string]string{naming.PoolAnnotation: pool, naming.GoldenAnnotation: "talos-worker-x-v1.0.0"}
		st.DataVolumes = append(st.DataVolumes, cdiv1.DataVolume{ObjectMeta: objectMeta(ns, name, a)})
		st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, corev1.PersistentVolumeClaim{ObjectMeta: objectMeta(ns, name, a)})
	}
	for i := range 100 {
		disk("other-"+string(rune('a'+i%26))+string(rune('a'+i/26)), "kubernetes-c-md1")
	}
	disk("own-0", naming.PoolCAPIName(pool.Name))
	disk("own-1", naming.PoolCAPIName(pool.Name))
	st.PersistentVolumeClaims[len(st.PersistentVolumeClaims)-1].Annotations = nil

	own := &memory{st: st, indexed: true}
	got, err := Read(context.Background(), own, plan.Needs(pool), 0)
	require.NoError(t, err)
	assert.Equal(t, 4, own.disks, "two DataVolumes and one PVC by the index, the other PVC by name")
	assert.Len(t, got.DataVolumes, 2)
	assert.Len(t, got.PersistentVolumeClaims, 2)
	assert.Equal(t, []string{ns}, got.Namespaces, "the namespace is observed: what the plan reads of it is all there")

	whole := &memory{st: st}
	_, err = Read(context.Background(), whole, plan.Needs(pool), 0)
	require.NoError(t, err)
	assert.Equal(t, 2*102, whole.disks, "without the index, the namespace's every disk")
}

func objectMeta(ns, name string, annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: maps.Clone(annotations)}
}
