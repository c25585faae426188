package controllerruntime_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A reconciler plans from its manager's cache: register CDI's types on the
// manager's scheme, then read through mgr.GetClient(). Here a fake client
// stands in for the manager's, holding what the plan reads of a cluster
// before its first golden: the class with its CSI driver, CDI's
// StorageProfile of the class, the CDI resource and CDI's config. The
// golden is not created yet, which the plan reports as pending, not as
// missing.
func ExampleReader_Read() {
	scheme := runtime.NewScheme()
	if err := controllerruntime.AddToScheme(scheme); err != nil {
		fmt.Println(err)
		return
	}
	block, csiClone, expands := corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone, true
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects( // mgr.GetClient()
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "replicated"}, Provisioner: "linstor.csi.linbit.com", AllowVolumeExpansion: &expands},
		&storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "linstor.csi.linbit.com"}},
		&cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: "replicated"}, Status: cdiv1.StorageProfileStatus{
			ClaimPropertySets: []cdiv1.ClaimPropertySet{{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeMode: &block}},
		}},
		&cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}, Spec: cdiv1.CDISpec{CloneStrategyOverride: &csiClone}},
		&cdiv1.CDIConfig{ObjectMeta: metav1.ObjectMeta{Name: "config"}},
	).Build()

	pool := plan.Pool{Namespace: "tenant-demo", Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}

	st, err := controllerruntime.New(c).Read(context.Background(), plan.Needs(pool))
	if err != nil {
		fmt.Println("requeue:", err) // a *ReadError: transient
		return
	}
	values := catalog.Default()
	values.Enabled = true
	res, err := plan.Plan(pool, catalog.Compile(values), state.NewSnapshot(st))
	fmt.Println(res.Outcome, err)
	for _, w := range res.Warnings {
		fmt.Println("warning:", w.Reason, w.Field)
	}
	// Output:
	// planned <nil>
	// warning: GoldenPending osImage.builtin
}
