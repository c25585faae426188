package apiserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
)

// BuildScript builds the binaries the suite runs, from the Go module proxy,
// and prints the directory that holds them.
const BuildScript = ".ci/envtest-binaries"

// Env is a running kube-apiserver and etcd with CRDs installed.
type Env struct {
	// Config connects as a cluster admin (system:masters).
	Config *rest.Config
	// Client is an uncached admin client whose scheme is Scheme().
	Client client.Client
	// Startup is how long the control plane took to start, CRDs included.
	Startup time.Duration

	env     *envtest.Environment
	mu      sync.Mutex
	cluster bool
	// kept is the directory of etcd's data when it is kept between runs
	// (EtcdDirEnv), and reused whether it held data when etcd started.
	kept   string
	reused bool
}

// EtcdDirEnv names a directory that keeps etcd's data between runs of a
// package's tests, for the scale tests: what a run loads there (the
// fixture cluster, its disks, its pools) a later run finds and does not
// write again, so that 300,000 objects are loaded once, not on every run.
// Each load is recorded in the cluster itself, in a ConfigMap, once it is
// complete; a run that would load something else into a directory that
// already holds a cluster fails and says so, rather than measure both. A
// test that changes an object puts it back when it ends: a run killed
// midway may leave a change behind, and removing the directory starts
// afresh. The other tests of a package expect a fresh cluster: set it for
// the scale tests alone.
const EtcdDirEnv = "WORKER_IMAGE_ETCD_DIR"

// MissingError says that kube-apiserver or etcd is not where the suite
// looks, and how to build them.
type MissingError struct {
	Binary string
	Dir    string
	// From says where Dir came from.
	From string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("no %s in %s (%s): run %s once (it builds kube-apiserver and etcd from the Go module proxy, several minutes the first time), then KUBEBUILDER_ASSETS=\"$(%s)\" go test …",
		e.Binary, e.Dir, e.From, BuildScript, BuildScript)
}

// suite is the package's one control plane: started by the first Get,
// stopped by Main after every test ran.
var suite struct {
	sync.Mutex
	inMain  bool
	started bool
	env     *Env
	err     error
}

// Main runs a package's tests and stops the control plane when they are
// done. Call it from TestMain: os.Exit(apiserver.Main(m)). The control
// plane starts at the first Get only, so a run that selects no test of the
// suite starts nothing.
func Main(m *testing.M) int {
	flag.Parse()
	ctrllog.SetLogger(logger())
	suite.Lock()
	suite.inMain = true
	suite.Unlock()

	code := m.Run()

	suite.Lock()
	defer suite.Unlock()
	if suite.env != nil {
		if err := suite.env.env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "apiserver: stop kube-apiserver and etcd: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// logger shows controller-runtime's logs (a manager's, a reconciler's)
// with -v only, and otherwise keeps them out of the way.
func logger() logr.Logger {
	if !testing.Verbose() {
		return logr.Discard()
	}
	return funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{})
}

// Get returns the package's control plane, starting it on first use. Where
// the binaries are missing the test is skipped with a message that names
// BuildScript; in CI (CI=true) it fails instead, since a suite that
// silently skips proves nothing.
func Get(t testing.TB) *Env {
	t.Helper()
	suite.Lock()
	defer suite.Unlock()
	if !suite.inMain {
		t.Fatal("apiserver: call apiserver.Main from TestMain, which stops the control plane after the tests")
	}
	if !suite.started {
		suite.started = true
		suite.env, suite.err = start()
		if suite.err == nil {
			t.Logf("kube-apiserver and etcd started, CRDs installed, in %v", suite.env.Startup.Round(time.Millisecond))
		}
	}
	switch {
	case skips(suite.err):
		t.Skip(suite.err)
	case suite.err != nil:
		t.Fatal(suite.err)
	}
	return suite.env
}

// skips reports whether a control plane that did not start skips the
// tests: only for want of the binaries, and never in CI.
func skips(err error) bool {
	var missing *MissingError
	return errors.As(err, &missing) && os.Getenv("CI") != "true"
}

func start() (*Env, error) {
	dir, err := Assets()
	if err != nil {
		return nil, err
	}
	began := time.Now()
	te := &envtest.Environment{BinaryAssetsDirectory: dir, CRDs: CRDs()}
	kept, reused, err := keptData()
	if err != nil {
		return nil, err
	}
	if kept != "" {
		te.ControlPlane.Etcd = &envtest.Etcd{DataDir: kept}
	}
	cfg, err := te.Start()
	if err != nil {
		// Start can fail after etcd is up; Stop ends what did start.
		_ = te.Stop()
		return nil, fmt.Errorf("apiserver: start kube-apiserver and etcd from %s: %w", dir, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: Scheme()})
	if err != nil {
		_ = te.Stop()
		return nil, fmt.Errorf("apiserver: client: %w", err)
	}
	if err := warm(c); err != nil {
		_ = te.Stop()
		return nil, err
	}
	return &Env{Config: cfg, Client: c, Startup: time.Since(began), env: te, kept: kept, reused: reused}, nil
}

// keptData is the directory EtcdDirEnv names, made if it is missing, and
// whether it already holds etcd's data.
func keptData() (dir string, reused bool, err error) {
	dir = os.Getenv(EtcdDirEnv)
	if dir == "" {
		return "", false, nil
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", false, fmt.Errorf("apiserver: %s: %w", EtcdDirEnv, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("apiserver: %s: %w", EtcdDirEnv, err)
	}
	_, err = os.Stat(filepath.Join(dir, "member"))
	return dir, err == nil, nil
}

// warm lists each CRD's objects and dry-runs a create of one, all at the
// same time: the server answers the first list of a custom resource after
// about a second (its storage starts then) and the first write of any
// custom resource after about two, which would otherwise fall on the
// first test, one kind after another.
func warm(c client.Client) error {
	crds := CRDs()
	errs := make(chan error, len(crds))
	for _, crd := range crds {
		go func() {
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: crd.Spec.Versions[0].Name}
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(gv.WithKind(crd.Spec.Names.ListKind))
			if err := listWhileInitializing(c, l); err != nil {
				errs <- err
				return
			}
			o := &unstructured.Unstructured{}
			o.SetGroupVersionKind(gv.WithKind(crd.Spec.Names.Kind))
			o.SetName("warm")
			if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
				o.SetNamespace(metav1.NamespaceDefault)
			}
			errs <- c.Create(context.Background(), o, client.DryRunAll)
		}()
	}
	var all error
	for range crds {
		all = errors.Join(all, <-errs)
	}
	if all != nil {
		return fmt.Errorf("apiserver: the CRDs are not served: %w", all)
	}
	return nil
}

// initializingFor is the longest warm waits for a custom resource's
// storage to start: over kept data the server fills its watch cache of a
// kind from etcd first (100,000 DataVolumes take minutes), and answers
// 429, storage (re)initializing, until then.
const initializingFor = 15 * time.Minute

// listWhileInitializing lists l, again while the server answers that the
// kind's storage is still initializing.
func listWhileInitializing(c client.Client, l *unstructured.UnstructuredList) error {
	deadline := time.Now().Add(initializingFor)
	for {
		err := c.List(context.Background(), l)
		if err == nil || !apierrors.IsTooManyRequests(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// Assets is the directory holding kube-apiserver and etcd: KUBEBUILDER_ASSETS
// when set, otherwise .cache/envtest/bin in the repository, where
// BuildScript puts them. A *MissingError says that a binary is not there.
func Assets() (string, error) {
	dir, from := os.Getenv("KUBEBUILDER_ASSETS"), "KUBEBUILDER_ASSETS"
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		dir, from = filepath.Join(root, ".cache", "envtest", "bin"), "KUBEBUILDER_ASSETS unset, the build script's folder"
	}
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
			return "", &MissingError{Binary: b, Dir: dir, From: from}
		}
	}
	return dir, nil
}

// repoRoot is the nearest folder above the working directory (a test's
// package folder) that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("apiserver: find the repository: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("apiserver: no go.mod above the working directory; set KUBEBUILDER_ASSETS")
		}
		dir = parent
	}
}

// Scheme knows the built-in kinds and CDI's, as a manager's scheme must
// (controllerruntime.AddToScheme).
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, controllerruntime.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // registering known types cannot fail
		}
	}
	return s
}
