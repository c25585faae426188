package cli

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"sync"
	"syscall"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/controller"
	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/compact"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/dvwatch"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
)

var controllerCommand = &command{
	name:     "controller",
	summary:  "plan every pool, VM disk and golden continuously, record Events and export metrics",
	synopsis: "controller [--kubeconfig PATH] [--catalog-release NS/NAME] [--leader-elect=false] [--leader-election-namespace NS]",
	about: `Plans every KubernetesNodes pool, every HelmRelease of the kubernetes-nodes
chart, every VMDisk and HelmRelease of the vm-disk chart, and every golden of
the catalog from the manager's cache, and plans again the pools and disks a
change can move: a StorageClass, StorageProfile, CDI, CDIConfig, CSIDriver or
VolumeSnapshotClass, a golden's DataVolume or PVC, a pool's own disks, a VM
disk's own DataVolume or its source's, the catalog release (--catalog-release,
"" to read the catalog back from the goldens), the image catalog's release
cozy-system/vm-default-images, and the ConfigMaps and Secrets either release's
spec.valuesFrom names (watched one by one, by name: grant get, list and watch
on exactly those). It writes no workload object: it records an Event on a pool
or VM disk when its verdict changes, and serves Prometheus metrics on
--metrics-bind-address (worker_image_pools, worker_image_pool_warnings,
worker_image_goldens, worker_image_predicted_host_assisted_clones,
worker_image_vm_disks, worker_image_vm_disk_warnings,
worker_image_vm_disk_predicted_host_assisted_clones,
worker_image_replan_duration_seconds, worker_image_plan_read_failures_total,
worker_image_events_dropped_total).
One replica plans at a time (leader election, in --leader-election-namespace);
readiness (/readyz) and liveness (/healthz) are served on
--health-probe-bind-address. It stops on SIGTERM or SIGINT.`,
	example: `worker-image controller --kubeconfig ~/.kube/config --leader-elect=false`,
	flags:   controllerFlags,
	run:     runController,
}

type controllerOptions struct {
	metricsAddr, healthAddr string
	pprofAddr               string
	release                 string
	leaderElect             bool
	leaseNamespace          string
}

var controllerRuns sync.Map // *options → *controllerOptions

func controllerFlags(fs *flag.FlagSet, o *options) {
	c := &controllerOptions{}
	controllerRuns.Store(o, c)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the cluster to watch (default: in-cluster, else $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&c.release, "catalog-release", webhook.DefaultCatalogRelease().String(), `the catalog's HelmRelease NAMESPACE/NAME, whose values (spec.values over spec.valuesFrom) pools are planned against ("" reads the catalog back from the goldens)`)
	fs.StringVar(&c.metricsAddr, "metrics-bind-address", ":8080", `where to serve /metrics ("0" to serve none)`)
	fs.StringVar(&c.healthAddr, "health-probe-bind-address", ":8081", "where to serve /healthz and /readyz")
	fs.StringVar(&c.pprofAddr, "pprof-bind-address", "0", `where to serve Go's profiles, /debug/pprof/ ("0" to serve none)`)
	fs.BoolVar(&c.leaderElect, "leader-elect", true, "plan only while holding the leader election lease, so that one replica records Events")
	fs.StringVar(&c.leaseNamespace, "leader-election-namespace", "", "the lease's namespace (default: the pod's own; required outside a cluster)")
}

func runController(a *app, o *options, args []string) error {
	v, _ := controllerRuns.LoadAndDelete(o)
	c := v.(*controllerOptions)
	if len(args) > 0 {
		return badUsage("unexpected argument %q", args[0])
	}
	key, err := (&webhookOptions{release: c.release}).catalogRelease()
	if err != nil {
		return err
	}
	cfg, scheme, err := managerBase(a, o)
	if err != nil {
		return err
	}
	// The controller's cache holds each worker disk compactly: at 100,000
	// disks some 75 MiB less than whole slimmed objects. Its reads of
	// disks go through controllerruntime.Reader, which reads the
	// informers' stores; a copy through the client is typed.
	cacheOpts := controllerruntime.CacheOptions()
	cacheOpts.DefaultTransform = compact.After(cacheOpts.DefaultTransform)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         cacheOpts,
		NewCache:                      dvwatch.NewCache,
		Client:                        client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                       metricsserver.Options{BindAddress: c.metricsAddr},
		HealthProbeBindAddress:        c.healthAddr,
		PprofBindAddress:              c.pprofAddr,
		LeaderElection:                c.leaderElect,
		LeaderElectionID:              controller.Name,
		LeaderElectionNamespace:       c.leaseNamespace,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return failed("set up the controller: %v", err)
	}
	if err := controller.Setup(mgr, controller.Options{CatalogRelease: key}); err != nil {
		return failed("set up the controller: %v", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return failed("set up the controller: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return failed("run the controller: %v", err)
	}
	return nil
}
