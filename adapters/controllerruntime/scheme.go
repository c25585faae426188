package controllerruntime

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// AddToScheme registers every type the Reader reads: the core and storage
// kinds a manager's default scheme already has, and those it does not:
// CDI's cdi.kubevirt.io/v1beta1 kinds, the CSI snapshotter's
// VolumeSnapshotClass, KubeVirt's kubevirt.io/v1 (VirtualMachine) and the
// KubevirtMachineTemplate of package capk. A scheme that already maps
// KubevirtMachineTemplate to CAPK's own type is an error, never a panic
// (capk.AddToScheme). Call it on the manager's scheme:
//
//	scheme := runtime.NewScheme()
//	_ = clientgoscheme.AddToScheme(scheme)
//	_ = controllerruntime.AddToScheme(scheme)
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme})
func AddToScheme(s *runtime.Scheme) error { return schemeBuilder.AddToScheme(s) }

var schemeBuilder = runtime.NewSchemeBuilder(corev1.AddToScheme, storagev1.AddToScheme, cdiv1.AddToScheme, snapshotv1.AddToScheme,
	kubevirtv1.AddToScheme, capk.AddToScheme)
