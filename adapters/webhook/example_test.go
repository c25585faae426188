package webhook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/catalog"
)

// Serving the webhook from a manager: CDI's types on its scheme, the
// catalog release cached alone, unstructured objects read from the cache.
func Example() {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = controllerruntime.AddToScheme(scheme)
	opts := webhook.Options{CatalogRelease: webhook.DefaultCatalogRelease()}
	run := func() error {
		mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
			Scheme:                 scheme,
			Cache:                  webhook.CacheOptions(opts),
			Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
			WebhookServer:          crwebhook.NewServer(crwebhook.Options{Port: webhook.DefaultPort, CertDir: "/tmp/k8s-webhook-server/serving-certs"}),
			HealthProbeBindAddress: ":8081",
		})
		if err != nil {
			return err
		}
		if _, err := webhook.Setup(mgr, opts); err != nil {
			return err
		}
		return mgr.Start(ctrl.SetupSignalHandler())
	}
	_ = run // run() serves until SIGTERM
}

// A pool that clones a golden that is not in the catalog is denied, with
// the refusal as a cause at the object's field. Register serves the
// webhooks on a server, where the API server posts its AdmissionReviews;
// the fake client stands in for the manager's cache: a cluster of one
// class, of a CSI driver.
func ExampleValidator_Register() {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = controllerruntime.AddToScheme(scheme)
	replicated := &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: "replicated", Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner: "linstor.csi.linbit.com",
	}
	driver := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "linstor.csi.linbit.com"}}
	block := corev1.PersistentVolumeBlock
	profile := &cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: "replicated"}, Status: cdiv1.StorageProfileStatus{
		ClaimPropertySets: []cdiv1.ClaimPropertySet{{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeMode: &block}},
	}}
	config := &cdiv1.CDIConfig{ObjectMeta: metav1.ObjectMeta{Name: "config"}}
	cache := fake.NewClientBuilder().WithScheme(scheme).WithObjects(replicated, driver, profile, config).Build()
	v := webhook.New(cache, webhook.Options{Catalog: catalog.Compile(catalog.Default())}) // disabled
	server := crwebhook.NewServer(crwebhook.Options{})
	v.Register(server)

	obj, _ := json.Marshal(map[string]any{
		"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "KubernetesNodes",
		"metadata": map[string]any{"namespace": "tenant-demo", "name": "demo-md0"},
		"spec":     map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}},
	})
	body, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "1", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: obj},
			Kind: metav1.GroupVersionKind{Group: "apps.cozystack.io", Version: "v1alpha1", Kind: "KubernetesNodes"},
		},
	})
	req := httptest.NewRequest(http.MethodPost, webhook.PoolsPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	server.WebhookMux().ServeHTTP(rec, req)

	var review admissionv1.AdmissionReview
	_ = json.Unmarshal(rec.Body.Bytes(), &review)
	r := review.Response
	fmt.Println(r.Allowed, r.Result.Code, r.Result.Reason)
	for _, c := range r.Result.Details.Causes {
		fmt.Println(c.Type, c.Field, strings.Contains(c.Message, "catalog"))
	}
	// Output:
	// false 422 Invalid
	// GoldenNotInCatalog spec.osImage.builtin true
}
