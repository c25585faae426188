package controllerruntime

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
)

// AddToScheme registers every type the Reader reads: the core and storage
// kinds a manager's default scheme already has, and CDI's cdi.kubevirt.io
// v1beta1 kinds, which it does not. Call it on the manager's scheme:
//
//	scheme := runtime.NewScheme()
//	_ = clientgoscheme.AddToScheme(scheme)
//	_ = controllerruntime.AddToScheme(scheme)
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme})
func AddToScheme(s *runtime.Scheme) error { return schemeBuilder.AddToScheme(s) }

var schemeBuilder = runtime.NewSchemeBuilder(corev1.AddToScheme, storagev1.AddToScheme, cdiv1.AddToScheme, snapshotv1.AddToScheme)
