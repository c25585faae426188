package clientgo_test

import (
	"context"
	"errors"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/adapters/clientgo"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A Reader reads what the planner says a pool needs. In a program the
// clients come from kubernetes.NewForConfig and dynamic.NewForConfig; here
// they are fakes, and the reader may not list CSIDrivers.
func ExampleReader_Read() {
	core := kubefake.NewClientset(&storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: "replicated", Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner: "linstor.csi.linbit.com",
	})
	core.PrependReactor("list", "csidrivers", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(storagev1.Resource("csidrivers"), "", errors.New("RBAC"))
	})
	scheme := runtime.NewScheme()
	_ = cdiv1.AddToScheme(scheme)
	_ = snapshotv1.AddToScheme(scheme)
	dyn := dynamicfake.NewSimpleDynamicClient(scheme)

	pool := plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}

	st, err := clientgo.New(core, dyn).Read(context.Background(), plan.Needs(pool))
	if err != nil {
		fmt.Println("retry:", err)
		return
	}
	snap := state.NewSnapshot(st)
	fmt.Println("default class:", stateindex.Of(snap).DefaultClass().Name)
	fmt.Println("observed:", st.Observed)
	fmt.Println("disks read in:", st.Namespaces)
	img := catalog.Default().Images[0] // the default flavor
	golden, _ := naming.GoldenName(img.SchematicID, img.Version, nil, nil)
	fmt.Println("golden known absent:", stateindex.Of(snap).Covers(state.DataVolume, naming.GoldenNamespace, golden) &&
		stateindex.Of(snap).DataVolume(naming.GoldenNamespace, golden) == nil)
	// Output:
	// default class: replicated
	// observed: StorageClass|PersistentVolumeClaim|DataVolume|StorageProfile|CDI|VolumeSnapshotClass|CDIConfig
	// disks read in: [tenant-demo]
	// golden known absent: true
}
