package cli

import (
	"context"
	"os"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// readsCluster reports whether the command reads a cluster: --kubeconfig
// or --context names one, or KUBECONFIG does (client-go's loading rules,
// as kubectl follows them), unless a --state file or the example gives the
// state. A command that plans what is in the cluster reads it in any case
// (clientcmd then falls back to ~/.kube/config and the in-cluster config).
func (a *app) readsCluster(o *options) bool {
	if o.example || o.state != "" || !o.cluster {
		return false
	}
	return o.kubeconfig != "" || o.context != "" || a.getenv(clientcmd.RecommendedConfigPathEnvVar) != ""
}

// clientConfig is the kubeconfig as kubectl loads it: --kubeconfig, else
// KUBECONFIG, else ~/.kube/config, with --context, --namespace and
// --request-timeout as overrides. Each file is bounded as every input is:
// a regular file over the bound is refused from its size; a kubeconfig
// that is no regular file (a pipe, /dev/zero) is read here, bounded, when
// it is the only one, and refused in a list that clientcmd would merge.
func (a *app) clientConfig(o *options) (clientcmd.ClientConfig, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context, Timeout: o.requestTimeout}
	overrides.Context.Namespace = o.namespace
	paths := rules.Precedence
	if o.kubeconfig != "" {
		paths = []string{o.kubeconfig}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			// clientcmd says what is missing, as kubectl does.
			continue
		case fi.Mode().IsRegular() && fi.Size() > a.inputLimit():
			return nil, a.tooLarge("kubeconfig " + p)
		case fi.Mode().IsRegular() || fi.IsDir():
			continue
		case len(paths) > 1:
			return nil, unusable("kubeconfig %s is not a regular file (%s); a kubeconfig of a list that KUBECONFIG merges must be one: pass it alone with --kubeconfig", p, fi.Mode().Type())
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, unusable("kubeconfig: %v", err)
		}
		data, err := a.readAll("kubeconfig "+p, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		cfg, err := clientcmd.Load(data)
		if err != nil {
			return nil, unusable("kubeconfig %s: %v", p, err)
		}
		return clientcmd.NewNonInteractiveClientConfig(*cfg, o.context, overrides, nil), nil
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides), nil
}

// clusterName names the cluster read in messages.
func (o *options) clusterName() string {
	name := "the cluster"
	switch {
	case o.kubeconfig != "":
		name += " of " + o.kubeconfig
	default:
		name += " of the kubeconfig"
	}
	if o.context != "" {
		name += " (context " + o.context + ")"
	}
	return name
}

// conn is a connection to a cluster, made once per run.
type conn struct {
	name      string
	namespace string // the context's namespace, or -n
	core      kubernetes.Interface
	dyn       dynamic.Interface
	disc      discovery.DiscoveryInterface
	served    *clusterread.Discovered
}

// connect connects to the cluster the flags and KUBECONFIG name and asks
// its discovery what it is. A kubeconfig that cannot be loaded is unusable
// input; an endpoint whose discovery fails, or that serves no core group,
// is not a Kubernetes API server: status 1, never a set of unknown kinds.
func (a *app) connect(o *options) (*conn, error) {
	cc, err := a.clientConfig(o)
	if err != nil {
		return nil, err
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		if o.kubeconfig != "" {
			return nil, unusable("kubeconfig %s: %v", o.kubeconfig, err)
		}
		return nil, unusable("kubeconfig: %v", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, unusable("kubeconfig: %v", err)
	}
	return a.connectConfig(o.clusterName(), ns, cfg)
}

// clientQPS and clientBurst bound the requests a run sends, in place of
// client-go's 5 per second (burst 10): a run's reads are a few lists of
// 500-object pages, and at 5 per second the pages of a cluster of 100,000
// disks would take a minute of waiting alone.
const (
	clientQPS   = 50
	clientBurst = 100
)

func (a *app) connectConfig(name, namespace string, cfg *rest.Config) (*conn, error) {
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg = rest.CopyConfig(cfg)
		cfg.QPS, cfg.Burst = clientQPS, clientBurst
	}
	cfg = clusterread.BoundWatchesBySilence(clusterread.BufferWatches(cfg))
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, failed("connect to %s: %v", name, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, failed("connect to %s: %v", name, err)
	}
	disc := &onceDiscovery{DiscoveryInterface: core.Discovery()}
	served, err := clusterread.Discover(disc)
	if err != nil {
		return nil, failed("read %s: %v", name, err)
	}
	return &conn{name: name, namespace: namespace, core: core, dyn: dyn, disc: disc, served: served}, nil
}

// read reads what req asks for, and says why each kind it left unknown
// is. A read that failed is status 1: retry rather than plan on a partial
// view; what the credentials may not read is unknown, never absent.
func (c *conn) read(req state.Request) (*state.State, map[state.Kind]string, error) {
	src := clusterread.ClientGo{Core: c.core, Dynamic: c.dyn}
	st, unread, err := clusterread.ReadClientGo(context.Background(), src, c.disc, 0, req)
	if err != nil {
		// A *ReadError (retry), a *NotAPIServerError, or discovery's own
		// failure: none is a plan.
		return nil, nil, failed("read %s: %v", c.name, err)
	}
	causes := map[state.Kind]string{}
	for _, u := range unread {
		if prev, ok := causes[u.Kind]; ok {
			// Every namespace it was refused in, at once.
			causes[u.Kind] = prev + "; " + u.String()
			continue
		}
		causes[u.Kind] = u.String()
	}
	return st, causes, nil
}

// onceDiscovery answers each discovery request once per run: the
// connection's check and the reader's ask the same.
type onceDiscovery struct {
	discovery.DiscoveryInterface
	mu     sync.Mutex
	groups *metav1.APIGroupList
	gErr   error
	gDone  bool
	lists  map[string]*metav1.APIResourceList
	errs   map[string]error
}

func (d *onceDiscovery) ServerGroups() (*metav1.APIGroupList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.gDone {
		d.groups, d.gErr = d.DiscoveryInterface.ServerGroups()
		d.gDone = true
	}
	return d.groups, d.gErr
}

func (d *onceDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lists == nil {
		d.lists, d.errs = map[string]*metav1.APIResourceList{}, map[string]error{}
	}
	if l, ok := d.lists[gv]; ok {
		return l, d.errs[gv]
	}
	l, err := d.DiscoveryInterface.ServerResourcesForGroupVersion(gv)
	d.lists[gv], d.errs[gv] = l, err
	return l, err
}
