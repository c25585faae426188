package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/cozystack/kubernetes-worker-image/adapters/clientgo"
	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	example "github.com/cozystack/kubernetes-worker-image/examples/cli"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// clusterTimeout bounds the reads of a cluster.
const clusterTimeout = 30 * time.Second

// hasState reports whether the command was given the cluster's state.
func (o *options) hasState() bool { return o.example || o.state != "" || o.kubeconfig != "" }

// snapshot is what the command knows of the cluster: the --state file (the
// kinds it holds an object of and those --observed names; the embedded
// example's every kind), what need asks for read from the --kubeconfig
// cluster, or nothing (every kind unknown: the guards that need one warn
// StateUnverified). A destructive report (prune) takes a file's PVCs and
// DataVolumes for every namespace only when --observed names them.
func (a *app) snapshot(o *options, need func() state.Request, destructive bool) (*state.Snapshot, error) {
	var st *state.State
	var notes []manifests.Note
	var err error
	name, named := example.StateFile, o.observed.kinds
	switch {
	case o.example:
		// The walkthrough's state is a dump of every kind in every
		// namespace.
		named = state.AllKinds
		st, notes, err = manifests.Read(name, bytes.NewReader(example.State))
	case o.state != "":
		var data []byte
		if data, name, err = a.readFile(o.state); err != nil {
			return nil, err
		}
		st, notes, err = manifests.Read(name, bytes.NewReader(data))
	case o.kubeconfig != "":
		st, err = readCluster(o.kubeconfig, need())
		if err != nil {
			return nil, err
		}
		return state.NewSnapshot(st), nil
	default:
		return nil, nil
	}
	if err != nil {
		return nil, inputError(err)
	}
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "note: %s\n", n)
	}
	if heldKinds(st) == 0 {
		return nil, unusable("%s holds no object of a kind the planner reads (%s); give what kubectl get -o yaml prints of them",
			name, strings.Join(kindNames(), ", "))
	}
	if observeFile(st, named, destructive) {
		fmt.Fprintf(a.stderr, "note: %s: its PersistentVolumeClaims and DataVolumes count only for the namespaces it holds them in; "+
			"if it holds every namespace's, pass --observed all (or --observed PersistentVolumeClaim,DataVolume)\n", name)
	}
	return state.NewSnapshot(st), nil
}

// readCluster reads what req asks for from the cluster of a kubeconfig. A
// kubeconfig that cannot be read is unusable input; a cluster that cannot be
// read is a failure (status 1). What the credentials may not read is left
// unknown by the reader, never taken as absent.
func readCluster(kubeconfig string, req state.Request) (*state.State, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, unusable("kubeconfig %s: %v", kubeconfig, err)
	}
	cfg.Timeout = clusterTimeout
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, failed("connect to the cluster of %s: %v", kubeconfig, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, failed("connect to the cluster of %s: %v", kubeconfig, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	st, err := clientgo.New(core, dyn).Read(ctx, req)
	if err != nil {
		return nil, failed("read the cluster of %s: %v", kubeconfig, err)
	}
	return st, nil
}

// loadCatalog is the catalog: the --catalog values, or, without them, the
// catalog read back from the goldens in the cluster's state.
func (a *app) loadCatalog(o *options, snap *state.Snapshot) (*catalog.Catalog, error) {
	var data []byte
	var name string
	switch {
	case o.example:
		data, name = example.Catalog, example.CatalogFile
	case o.catalog != "":
		var err error
		if data, name, err = a.readFile(o.catalog); err != nil {
			return nil, err
		}
	default:
		cat, warnings := catalog.FromCluster(snap)
		printWarnings(a.stderr, warnings)
		return cat, nil
	}
	m, err := values(name, data)
	if err != nil {
		return nil, err
	}
	// Values the chart cannot read are refusals the catalog carries: they
	// refuse the pools that clone, and render prints them in its shape.
	return catalog.Compile(catalog.DecodeValues(m)), nil
}

// printRefusals writes each refusal on a line: what was refused, its
// reason, its field and its detail, which says the way out.
func printRefusals(w io.Writer, rs guard.Refusals) {
	for _, r := range rs {
		fmt.Fprintf(w, "%s: refused %s\n", r.Subject, finding(r.Reason, r.Field, r.Detail))
	}
}

// printWarnings writes each warning on a line, as printRefusals does.
func printWarnings(w io.Writer, warnings guard.Warnings) {
	for _, x := range warnings {
		fmt.Fprintf(w, "%s: warning %s\n", x.Subject, finding(x.Reason, x.Field, x.Detail))
	}
}

// finding reads "StorageClassMismatch at storageClass: <detail>".
func finding(reason guard.Reason, field, detail string) string {
	if field == "" {
		return string(reason) + ": " + detail
	}
	return string(reason) + " at " + field + ": " + detail
}
