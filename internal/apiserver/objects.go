package apiserver

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// Create creates objs with their statuses, the way the cluster they
// describe has them: first each namespace they live in, then each object,
// then its status through the status subresource, since a create drops the
// status of a kind that has one (a PVC's phase Bound, a DataVolume's
// Succeeded). Each object is updated in place with what the server
// returned (resourceVersion, uid, creationTimestamp).
func (e *Env) Create(t testing.TB, objs ...client.Object) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" {
			e.Namespace(t, ns)
		}
	}
	for _, o := range objs {
		u := e.unstructured(t, o)
		status, hasStatus := u.Object["status"]
		if err := e.Client.Create(ctx, u); err != nil {
			t.Fatalf("create %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		if hasStatus {
			u.Object["status"] = status
			if err := e.Client.Status().Update(ctx, u); err != nil {
				t.Fatalf("write the status of %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
			}
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, o); err != nil {
			t.Fatalf("read back %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
}

// Namespace creates namespace ns unless it exists.
func (e *Env) Namespace(t testing.TB, ns string) {
	t.Helper()
	err := e.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
}

// unstructured is o with its apiVersion and kind, which a typed object
// built in Go may lack, so that one code path creates any kind.
func (e *Env) unstructured(t testing.TB, o client.Object) *unstructured.Unstructured {
	t.Helper()
	gvk, err := apiutil.GVKForObject(o, e.Client.Scheme())
	if err != nil {
		t.Fatalf("%T: %v", o, err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatalf("%T: %v", o, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u
}

// Objects reads every object of the kinds the planner reads, in every
// namespace: what an admin's kubectl get -A -o yaml of those kinds prints.
func (e *Env) Objects(t testing.TB) []client.Object {
	t.Helper()
	ctx := context.Background()
	var (
		classes   storagev1.StorageClassList
		drivers   storagev1.CSIDriverList
		pvcs      corev1.PersistentVolumeClaimList
		dvs       cdiv1.DataVolumeList
		profiles  cdiv1.StorageProfileList
		cdis      cdiv1.CDIList
		snapshots snapshotv1.VolumeSnapshotClassList
		configs   cdiv1.CDIConfigList
		volumes   corev1.PersistentVolumeList
	)
	var out []client.Object
	for _, l := range []client.ObjectList{&classes, &drivers, &pvcs, &dvs, &profiles, &cdis, &snapshots, &configs, &volumes} {
		if err := e.Client.List(ctx, l); err != nil {
			t.Fatalf("list %T: %v", l, err)
		}
	}
	for i := range classes.Items {
		out = append(out, &classes.Items[i])
	}
	for i := range drivers.Items {
		out = append(out, &drivers.Items[i])
	}
	for i := range pvcs.Items {
		out = append(out, &pvcs.Items[i])
	}
	for i := range dvs.Items {
		out = append(out, &dvs.Items[i])
	}
	for i := range profiles.Items {
		out = append(out, &profiles.Items[i])
	}
	for i := range cdis.Items {
		out = append(out, &cdis.Items[i])
	}
	for i := range snapshots.Items {
		out = append(out, &snapshots.Items[i])
	}
	for i := range configs.Items {
		out = append(out, &configs.Items[i])
	}
	for i := range volumes.Items {
		out = append(out, &volumes.Items[i])
	}
	return out
}

// Cluster creates the objects of fixtures.Cluster, once per control plane,
// so that every test of a package plans against the same realistic
// cluster. A test that changes one of them puts it back when it ends.
func (e *Env) Cluster(t testing.TB) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cluster {
		return
	}
	began := time.Now()
	objs := fixtures.Cluster()
	admissible(objs)
	e.Loaded(t, "cluster", objs, func() { e.Create(t, objs...) })
	e.cluster = true
	t.Logf("fixture cluster: %d objects, with their statuses, in %v", len(objs), time.Since(began).Round(time.Millisecond))
}

// admissible completes what a real server requires of objs and a fixture
// may leave out: a PersistentVolume's spec.accessModes, which it takes from
// the claim it is bound to, as a provisioner does.
func admissible(objs []client.Object) {
	claims := map[client.ObjectKey]*corev1.PersistentVolumeClaim{}
	for _, o := range objs {
		if p, ok := o.(*corev1.PersistentVolumeClaim); ok {
			claims[client.ObjectKeyFromObject(p)] = p
		}
	}
	for _, o := range objs {
		v, ok := o.(*corev1.PersistentVolume)
		if !ok || len(v.Spec.AccessModes) > 0 || v.Spec.ClaimRef == nil {
			continue
		}
		if p := claims[client.ObjectKey{Namespace: v.Spec.ClaimRef.Namespace, Name: v.Spec.ClaimRef.Name}]; p != nil {
			v.Spec.AccessModes = append([]corev1.PersistentVolumeAccessMode(nil), p.Spec.AccessModes...)
		}
	}
}
