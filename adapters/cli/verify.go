package cli

import (
	"bytes"
	"flag"
	"io"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

var verifyCommand = &command{
	name:     "helm-verify",
	summary:  "guard a chart's rendered manifests (a Helm post-renderer)",
	synopsis: "helm-verify [--catalog CATALOG.yaml] [--state STATE.yaml [--observed KIND,...] | --kubeconfig PATH] < rendered.yaml",
	about: `Reads the manifests a chart rendered on standard input, as helm template or
helm upgrade --post-renderer pass them, finds each KubevirtMachineTemplate's
disk-system entry and each golden DataVolume, and runs the planner's guards on
them against the cluster's state. On success it writes the manifests back
unchanged (status 0); otherwise it prints the refusals on standard error and
writes nothing (status 3). An existing chart gets the guards without changing
its templates. The catalog is the goldens in the manifests, else --catalog,
else the goldens read back from the cluster.`,
	example: `helm template demo ./kubernetes-nodes -f values.yaml | worker-image helm-verify --state state.yaml
helm upgrade demo ./kubernetes-nodes --post-renderer worker-image --post-renderer-args helm-verify --post-renderer-args --kubeconfig=$HOME/.kube/config`,
	flags: func(fs *flag.FlagSet, o *options) {
		o.catalogFlag(fs, "CATALOG.yaml: the kubernetes-worker-image package's values (default: the goldens in the manifests, else those in the cluster)")
		o.stateFlags(fs)
	},
	run: runVerify,
}

func runVerify(a *app, o *options, args []string) error {
	if len(args) > 0 {
		return badUsage("unexpected argument %q; the manifests come on standard input", args[0])
	}
	data, err := io.ReadAll(a.stdin)
	if err != nil {
		return unusable("read %s: %v", stdinName, err)
	}
	docs, err := documents(stdinName, data)
	if err != nil {
		return err
	}
	objects := make([]map[string]any, len(docs))
	namespaces := map[string]bool{naming.GoldenNamespace: true}
	for i, d := range docs {
		objects[i] = d.Object.Object
		if d.Object.GetKind() == helm.TemplateKind {
			namespaces[d.Object.GetNamespace()] = true
		}
	}
	snap, err := a.snapshot(o, func() state.Request { return verifyNeed(namespaces) }, false)
	if err != nil {
		return err
	}
	cat, err := a.loadCatalog(o, snap)
	if err != nil {
		return err
	}
	res, _ := helm.Verify(objects, cat, snap)
	printWarnings(a.stderr, res.Warnings())
	if len(res.Refusals) > 0 {
		printRefusals(a.stderr, res.Refusals)
		return errRefused
	}
	_, err = io.Copy(a.stdout, bytes.NewReader(data))
	return err
}

// verifyNeed is what checking rendered disks reads: the cluster-scoped
// kinds, and the DataVolumes and PVCs of the goldens' namespace and of the
// templates' namespaces.
func verifyNeed(namespaces map[string]bool) state.Request {
	r := state.Request{Lists: []state.Ref{
		{Kind: state.StorageClass}, {Kind: state.StorageProfile}, {Kind: state.CDI}, {Kind: state.CSIDriver},
	}}
	for ns := range namespaces {
		r.Lists = append(r.Lists, state.Ref{Kind: state.DataVolume, Namespace: ns}, state.Ref{Kind: state.PersistentVolumeClaim, Namespace: ns})
	}
	return r.Merge(state.Request{})
}
