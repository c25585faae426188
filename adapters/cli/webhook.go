package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/dvwatch"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/catalog"
)

var webhookCommand = &command{
	name:    "webhook",
	summary: "serve the admission webhook, or print its manifests",
	synopsis: "webhook --cert-dir DIR [--port N] [--kubeconfig PATH] [--context NAME] [--catalog-release NS/NAME | --catalog CATALOG.yaml]\n" +
		"  [--max-request-bytes N] [--header-timeout D] [--read-timeout D] [--max-in-flight N]\n" +
		"  worker-image webhook manifests [--namespace NS] [--image IMAGE] [--replicas N] [--failure-policy Fail|Ignore] [--timeout S] [--ca-bundle FILE] [--catalog-release NS/NAME] [--pool-resource R] [--port N] [--values FILE]...",
	about: `Serves the admission webhook that refuses pools at the API door: a
KubernetesNodes, or a HelmRelease of the kubernetes-nodes chart, whose plan the
planner refuses is denied with an Invalid status whose causes are the refusals'
fields and messages, and its warnings come back as kubectl's "Warning: …"; a
HelmRelease of the kubernetes-worker-image chart is rendered as the catalog, so
an edit of a live golden is denied. Pools are planned from the manager's cache
against the catalog release's values (--catalog-release, "" to read the
catalog back from the goldens) or a fixed catalog (--catalog). It serves TLS
from tls.crt and tls.key in --cert-dir, readiness (/readyz) and liveness
(/healthz) on --health-probe-bind-address and metrics on
--metrics-bind-address, and stops on SIGTERM or SIGINT. It serves within
bounds: a request body over --max-request-bytes is answered 413 before it is
read, a client that takes longer than --header-timeout for its headers or
--read-timeout for its whole request is cut, and past --max-in-flight requests
at once (or bodies of four of the largest) a request is answered 429.

"webhook manifests" prints what deploys it, as YAML to apply: the webhook of
the worker-image Helm chart (the chart embedded in this command), rendered for
its values (the chart's, the --values files over them in order, the flags
given over every file), with the namespace: the ValidatingWebhookConfiguration,
the Service, the Deployment, its PodDisruptionBudget and least-privilege RBAC
(read-only, on exactly the kinds a plan and a catalog render read, and on the
ConfigMaps and Secrets named in catalogRelease.valuesFrom and
imageCatalog.valuesFrom). helm install of the chart installs the same webhook,
and the controller with it.`,
	example: `worker-image webhook --cert-dir /tmp/k8s-webhook-server/serving-certs --port 9443 --kubeconfig ~/.kube/config
worker-image webhook manifests --image registry.example.com/worker-image:v1 | kubectl apply -f -
worker-image webhook manifests --values worker-image-values.yaml --replicas 3 | kubectl apply -f -`,
	flags: webhookFlags,
	run:   runWebhook,
}

// webhookOptions are the webhook command's own flags. The command list's
// options have no room for a command's own flags, so each run's are kept
// here, by the options its flags are parsed into, until it runs.
type webhookOptions struct {
	certDir, metricsAddr, healthAddr string
	pprofAddr                        string
	port                             int
	release                          string
	image                            string
	replicas                         int
	failurePolicy                    string
	timeout                          int
	caBundle                         string
	poolResource                     string
	values                           valueFiles
	limits                           webhook.Limits
}

var webhookRuns sync.Map // *options → *webhookOptions

func webhookFlags(fs *flag.FlagSet, o *options) {
	w := &webhookOptions{}
	webhookRuns.Store(o, w)
	fs.StringVar(&w.certDir, "cert-dir", "", "the folder holding the serving certificate, tls.crt and tls.key (required to serve)")
	fs.IntVar(&w.port, "port", webhook.DefaultPort, "the port to serve the webhook on (manifests: webhook.port)")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the cluster to watch (default: in-cluster, else $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&o.context, "context", "", "the kubeconfig context of the cluster to watch (default: the kubeconfig's current context; naming one reads a kubeconfig, never the in-cluster config)")
	fs.StringVar(&w.release, "catalog-release", webhook.DefaultCatalogRelease().String(), `the catalog's HelmRelease NAMESPACE/NAME, whose values (spec.values over spec.valuesFrom) pools are planned against ("" reads the catalog back from the goldens)`)
	o.catalogFlag(fs, "CATALOG.yaml: plan pools against these catalog values instead of the catalog release's")
	fs.StringVar(&w.metricsAddr, "metrics-bind-address", ":8080", `where to serve /metrics ("0" to serve none)`)
	fs.StringVar(&w.healthAddr, "health-probe-bind-address", ":8081", "where to serve /healthz and /readyz")
	fs.StringVar(&w.pprofAddr, "pprof-bind-address", "0", `where to serve Go's profiles, /debug/pprof/ ("0" to serve none)`)
	l := webhook.DefaultLimits()
	fs.Int64Var(&w.limits.MaxRequestBytes, "max-request-bytes", l.MaxRequestBytes, "the largest request body served, in bytes (at most 7340032, 7 MiB); a larger one is answered 413")
	fs.DurationVar(&w.limits.HeaderTimeout, "header-timeout", l.HeaderTimeout, "how long a client may take to send its request's headers, TLS handshake included")
	fs.DurationVar(&w.limits.ReadTimeout, "read-timeout", l.ReadTimeout, "how long a client may take to send its whole request, headers and body")
	fs.IntVar(&w.limits.MaxInFlight, "max-in-flight", l.MaxInFlight, "how many requests are read and judged at once; more are answered 429")
	// The manifests' flags set the chart's values, and default to them.
	fs.StringVar(&o.namespace, "namespace", manifestsNamespace, "manifests: the namespace the webhook runs in")
	fs.StringVar(&w.image, "image", chartValue("image", "repository")+":"+chartValue("image", "tag"), "manifests: the image of the worker-image command (image.repository:image.tag)")
	fs.IntVar(&w.replicas, "replicas", chartInt("webhook", "replicas"), "manifests: how many replicas serve (webhook.replicas)")
	fs.StringVar(&w.failurePolicy, "failure-policy", chartValue("webhook", "failurePolicy"), "manifests: Fail keeps pools out while the webhook is down, Ignore lets them through unchecked (webhook.failurePolicy)")
	fs.IntVar(&w.timeout, "timeout", chartInt("webhook", "timeoutSeconds"), "manifests: seconds the API server waits for an answer, 1 to 30 (webhook.timeoutSeconds)")
	fs.StringVar(&w.caBundle, "ca-bundle", "", "manifests: the serving certificate's CA (PEM file), for a Secret worker-image-webhook-tls made by hand; without it cert-manager issues the certificate (webhook.tls)")
	fs.StringVar(&w.poolResource, "pool-resource", chartValue("webhook", "poolResource"), "manifests: the resource KubernetesNodes are served as (webhook.poolResource)")
	fs.Var(&w.values, "values", `manifests: a values file of the chart (FILE, or "-" for standard input), as helm install -f takes it: repeat it, a later file wins over an earlier one, and a flag given wins over every file; a key the chart does not define (at any depth but inside a container's resources), and a value the chart cannot write, are refused`)
}

// valueFiles are the --values files, in the order given.
type valueFiles []string

func (v *valueFiles) String() string { return strings.Join(*v, ",") }

// Type names the flag's value in help.
func (v *valueFiles) Type() string { return "file" }

func (v *valueFiles) Set(s string) error {
	if s == "" {
		return errors.New("give a values file, or - for standard input")
	}
	*v = append(*v, s)
	return nil
}

func runWebhook(a *app, o *options, args []string) error {
	v, _ := webhookRuns.LoadAndDelete(o)
	w := v.(*webhookOptions)
	if len(args) > 0 && args[0] == "manifests" {
		if len(args) > 1 {
			return badUsage("unexpected argument %q", args[1])
		}
		return a.webhookManifests(o, w)
	}
	if len(args) > 0 {
		return badUsage("unexpected argument %q; the subcommand is manifests", args[0])
	}
	return a.serveWebhook(o, w)
}

// catalogRelease reads --catalog-release.
func (w *webhookOptions) catalogRelease() (types.NamespacedName, error) {
	if w.release == "" {
		return types.NamespacedName{}, nil
	}
	ns, name, ok := strings.Cut(w.release, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, badUsage("--catalog-release %q is not NAMESPACE/NAME", w.release)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// serveWebhook runs the webhook until SIGTERM or SIGINT.
func (a *app) serveWebhook(o *options, w *webhookOptions) error {
	if w.certDir == "" {
		return badUsage("--cert-dir DIR is required: the folder of the serving certificate (tls.crt, tls.key)")
	}
	for _, f := range []string{"tls.crt", "tls.key"} {
		if _, err := os.Stat(filepath.Join(w.certDir, f)); err != nil {
			return unusable("--cert-dir %s: %v", w.certDir, err)
		}
	}
	if w.port < 1 || w.port > 65535 {
		return badUsage("--port %d is not a port", w.port)
	}
	if err := checkLimits(w.limits); err != nil {
		return err
	}
	key, err := w.catalogRelease()
	if err != nil {
		return err
	}
	opts := webhook.Options{CatalogRelease: key}
	if o.catalog != "" {
		data, name, err := a.readFile(o.catalog)
		if err != nil {
			return err
		}
		m, err := values(name, data)
		if err != nil {
			return err
		}
		opts.Catalog = catalog.Compile(catalog.DecodeValues(m))
	}
	cfg, scheme, err := managerBase(a, o)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  webhook.CacheOptions(opts),
		NewCache:               dvwatch.NewCache,
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		WebhookServer:          webhook.NewServer(crwebhook.Options{Port: w.port, CertDir: w.certDir}, w.limits),
		Metrics:                metricsserver.Options{BindAddress: w.metricsAddr},
		HealthProbeBindAddress: w.healthAddr,
		PprofBindAddress:       w.pprofAddr,
	})
	if err != nil {
		return failed("set up the webhook: %v", err)
	}
	if _, err := webhook.Setup(mgr, opts); err != nil {
		return failed("set up the webhook: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return failed("serve the webhook: %v", err)
	}
	return nil
}

// checkLimits refuses limits the server cannot serve by.
func checkLimits(l webhook.Limits) error {
	switch {
	case l.MaxRequestBytes < 1<<10 || l.MaxRequestBytes > webhook.DefaultLimits().MaxRequestBytes:
		return badUsage("--max-request-bytes %d is not between 1024 and %d (7 MiB, the bound of the admission library, above the API server's own)",
			l.MaxRequestBytes, webhook.DefaultLimits().MaxRequestBytes)
	case l.HeaderTimeout <= 0:
		return badUsage("--header-timeout %v: a client must be given some time, and not forever", l.HeaderTimeout)
	case l.ReadTimeout < l.HeaderTimeout:
		return badUsage("--read-timeout %v is shorter than --header-timeout %v: it bounds the headers and the body", l.ReadTimeout, l.HeaderTimeout)
	case l.MaxInFlight < 1:
		return badUsage("--max-in-flight %d: at least one request must be served at a time", l.MaxInFlight)
	}
	return nil
}

// webhookConfig is the cluster's: the --kubeconfig file, else in-cluster,
// else $KUBECONFIG or ~/.kube/config; a --context is one of a kubeconfig's
// contexts, so it is never the in-cluster config.
// managerBase is what the webhook's and the controller's managers start
// from: the cluster's config, JSON logs on standard error, and a scheme
// with client-go's and CDI's types.
func managerBase(a *app, o *options) (*rest.Config, *runtime.Scheme, error) {
	cfg, err := webhookConfig(o.kubeconfig, o.context)
	if err != nil {
		return nil, nil, err
	}
	ctrl.SetLogger(funcr.NewJSON(func(obj string) { fmt.Fprintln(a.stderr, obj) }, funcr.Options{}))
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, controllerruntime.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, nil, failed("scheme: %v", err)
		}
	}
	return cfg, scheme, nil
}

func webhookConfig(kubeconfig, context string) (*rest.Config, error) {
	if kubeconfig == "" && context == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			return cfg, nil
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	switch {
	case err != nil && kubeconfig != "":
		return nil, unusable("kubeconfig %s: %v", kubeconfig, err)
	case err != nil && context != "":
		return nil, unusable("--context %s: %v", context, err)
	case err != nil:
		return nil, unusable("no cluster to watch: not in a cluster, and no kubeconfig: %v", err)
	}
	return cfg, nil
}
