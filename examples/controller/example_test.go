package controller_test

import (
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/examples/controller"
)

// A controller's main: a scheme with CDI's types, a manager that caches
// the unstructured pools too, the catalog's values, and the reconciler.
// (It needs a cluster, so it has no output to check; the package's tests
// run the same wiring against a real API server.)
func ExampleNew() {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		os.Exit(1)
	}
	if err := controllerruntime.AddToScheme(scheme); err != nil {
		os.Exit(1)
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme: scheme,
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	})
	if err != nil {
		os.Exit(1)
	}

	values := catalog.Default() // or the kubernetes-worker-image package's values
	values.Enabled = true
	if err := controller.New(mgr, catalog.Compile(values)).SetupWithManager(mgr); err != nil {
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		os.Exit(1)
	}
}
