package webhook

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
)

// A kind the webhook may not list is forbidden, said with what to grant,
// by readiness and by every admission that reads the cluster.
func TestForbiddenKinds(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, controllerruntime.AddToScheme(scheme))
	require.NoError(t, storagev1.AddToScheme(scheme))
	forbidden := func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		if _, ok := list.(*unstructured.UnstructuredList); ok {
			return apierrors.NewForbidden(schema.GroupResource{Group: helmReleaseGVK.Group, Resource: "helmreleases"}, "", errors.New("no Role"))
		}
		return c.List(ctx, list, opts...)
	}
	api := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{List: forbidden}).Build()
	w := &warmer{api: api, scheme: scheme, release: DefaultCatalogRelease(), readRelease: true}
	hr := &unstructured.UnstructuredList{}
	hr.SetGroupVersionKind(helmReleaseGVK.GroupVersion().WithKind("HelmReleaseList"))
	lists := []listing{
		{list: &storagev1.StorageClassList{}, what: "storageclasses.storage.k8s.io in every namespace"},
		{list: hr, what: "helmreleases.helm.toolkit.fluxcd.io in namespace cozy-system (resourceNames: kubernetes-worker-image)"},
	}
	err := w.allowed(context.Background(), lists)
	require.Error(t, err)
	assert.Equal(t, "forbidden: grant list and watch on helmreleases.helm.toolkit.fluxcd.io in namespace cozy-system (resourceNames: kubernetes-worker-image) "+
		"to the webhook's user (worker-image webhook manifests prints the ClusterRole and the Role)", err.Error())
	assert.NoError(t, w.allowed(context.Background(), lists[:1]), "neighbour: a kind it may list is allowed")

	w.forbidden.Store(&err)
	assert.ErrorContains(t, w.ready(nil), "forbidden: grant list and watch on helmreleases")

	v := New(api, Options{CatalogRelease: DefaultCatalogRelease()})
	v.forbidden = &w.forbidden
	obj := []byte(`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"namespace":"tenant-a","name":"demo-md0"},"spec":{"cluster":"demo"}}`)
	r := v.Pools().Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "u", Operation: admissionv1.Create, Kind: metav1.GroupVersionKind{Group: "apps.cozystack.io", Version: "v1alpha1", Kind: "KubernetesNodes"},
		Object: runtime.RawExtension{Raw: obj},
	}})
	require.False(t, r.Allowed)
	assert.Equal(t, int32(http.StatusInternalServerError), r.Result.Code)
	assert.Contains(t, r.Result.Message, "forbidden: grant list and watch on helmreleases")
}

// PersistentVolumes, read by name, need get and not list: a webhook that
// may get them is allowed whatever it may list; one that may not is told
// to grant get.
func TestVolumesNeedGet(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, controllerruntime.AddToScheme(scheme))
	getForbidden := false
	var gets, lists int
	api := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*corev1.PersistentVolume); ok {
				gets++
				if getForbidden {
					return apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumes"}, key.Name, errors.New("no get"))
				}
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*corev1.PersistentVolumeList); ok {
				lists++
				return apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumes"}, "", errors.New("no list"))
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
	w := &warmer{api: api, scheme: scheme}
	lists2 := []listing{
		{list: &storagev1.StorageClassList{}, what: "storageclasses.storage.k8s.io in every namespace"},
		{what: "persistentvolumes", get: &corev1.PersistentVolume{}},
	}
	assert.NoError(t, w.allowed(context.Background(), lists2), "get allowed (NotFound), list refused: allowed")
	assert.Equal(t, 1, gets)
	assert.Zero(t, lists, "never listed")

	getForbidden = true
	err := w.allowed(context.Background(), lists2)
	require.Error(t, err)
	assert.Equal(t, "forbidden: grant get on persistentvolumes to the webhook's user (worker-image webhook manifests prints the ClusterRole and the Role)", err.Error())
}
