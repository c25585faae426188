package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	example "github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The environment Helm 4 sets for a plugin it runs; Helm 3 runs a
// post-renderer with its own environment, which holds them only when the
// user set them.
const (
	helmPluginEnv = "HELM_PLUGIN_NAME"
	// helmContextEnv is the context Helm installs to (--kube-context; ""
	// is the kubeconfig's current one).
	helmContextEnv = "HELM_KUBECONTEXT"
	// helmNamespaceEnv is the release's namespace.
	helmNamespaceEnv = "HELM_NAMESPACE"
)

// helmTarget is what helm-verify knows of where Helm installs.
type helmTarget struct {
	// cluster: the flags, Helm's environment, a --state file or the
	// example say which cluster is checked.
	cluster bool
	// namespace: -n or Helm's environment says the release's namespace.
	namespace bool
}

// helmEnvironment takes the cluster and namespace Helm installs to from
// its environment (HELM_KUBECONTEXT, HELM_NAMESPACE; KUBECONFIG is the
// loading rules' own) unless the flags name them: they win over the
// kubeconfig's current context, which is the cluster Helm installs to only
// when it was given no --kube-context. It says what it could tell.
func (a *app) helmEnvironment(o *options) helmTarget {
	var t helmTarget
	switch {
	case o.example || o.state != "" || o.context != "" || o.kubeconfig != "":
		t.cluster = true
	default:
		if c, ok := a.lookupEnv(helmContextEnv); ok {
			o.context, t.cluster = c, true
		}
		// Without a cluster to read, nothing is checked against one: the
		// offline StateUnverified say so.
		t.cluster = t.cluster || !a.readsCluster(o)
	}
	if o.namespace != "" {
		t.namespace = true
	} else if ns, ok := a.lookupEnv(helmNamespaceEnv); ok && ns != "" {
		o.namespace, t.namespace = ns, true
	}
	return t
}

func (a *app) verifyCommand() *cobra.Command {
	o := &options{}
	var reportTo string
	cmd := &cobra.Command{
		Use:   "helm-verify [--catalog CATALOG.yaml] [--state STATE.yaml [--observed KIND,...]] [-n NAMESPACE] [--strict=false] < rendered.yaml",
		Short: "guard a chart's rendered manifests (a Helm post-renderer)",
		Long: `Reads the manifests a chart rendered on standard input, as helm template or a
Helm post-renderer passes them, finds each KubevirtMachineTemplate's
disk-system entry and each golden DataVolume, and runs the planner's guards on
them against the cluster's state. On success it writes the manifests back
unchanged (status 0); otherwise it prints the refusals on standard error and
writes nothing (status 3). An existing chart gets the guards without changing
its templates.

Every disk-system that clones anything is guarded: a clone of a volume that
is not a golden of cozy-public is refused NotAGolden. The catalog is the
goldens in the manifests merged with the catalog of --catalog, or, without
it, with the catalog found as follows.

` + catalogDefaultHelp + `

It is strict by default: a guard that could not look (StateUnverified) or an
UnknownField refuses, since Helm drops a post-renderer's standard error on
success and no one would read the warning (--strict=false to relax). -n is
the namespace of templates that name none: the release's.

Helm 4 runs post-renderers as plugins and prints only "plugin exited with
error" on a failure: run as one (HELM_PLUGIN_NAME set), helm-verify writes
what it prints on standard error to Helm's own standard error too, or to
--report-to. Flux's HelmReleases take Kustomize post-renderers only, so on
Cozystack's Flux path the admission webhook is the guard, not this.`,
		Example: a.examples(`worker-image helm-verify --example
helm template demo ./kubernetes-nodes -n tenant-demo -f values.yaml | worker-image helm-verify -n tenant-demo --state state.yaml
# Helm 4 runs post-renderers as plugins: install adapters/cli/helm-plugin, then
helm upgrade demo ./kubernetes-nodes -n tenant-demo --post-renderer worker-image --post-renderer-args=--namespace=tenant-demo
# Helm 3 runs the command; each argument after "=", so that Helm takes none of them
helm upgrade demo ./kubernetes-nodes -n tenant-demo --post-renderer worker-image --post-renderer-args=helm-verify --post-renderer-args=--namespace=tenant-demo`),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badUsage("unexpected argument %q; the manifests come on standard input", args[0])
			}
			return nil
		},
		RunE: a.runE(o, func(o *options, _ []string) error {
			if err := a.teeReport(reportTo); err != nil {
				return err
			}
			return a.runVerify(o, a.helmEnvironment(o))
		}),
	}
	fs := cmd.Flags()
	o.catalogFlags(fs, "`CATALOG.yaml`: the kubernetes-worker-image package's values, merged with the goldens in the manifests", true)
	o.stateFlags(fs)
	o.strictFlag(fs, true)
	fs.BoolVar(&o.example, "example", false, "verify the walkthrough's pools (examples/cli) as the chart renders them, against its catalog and state, instead of standard input")
	fs.StringVar(&reportTo, "report-to", "", "`PATH` that also gets what helm-verify prints on standard error (default, when Helm 4 runs it as a plugin: Helm's standard error)")
	return cmd
}

// teeReport makes standard error also go to path, or, run as a Helm 4
// plugin, to the standard error of the Helm process that runs it: Helm 4
// buffers a post-renderer plugin's standard error and drops it, on
// success and on failure alike. The plugin's parent is Helm (its
// subprocess runtime execs the command directly); on Linux its standard
// error is /proc/<parent>/fd/2, elsewhere the terminal stands in. It lasts
// to the end of the run, so that an error main prints goes there too.
func (a *app) teeReport(path string) error {
	var targets []string
	switch {
	case path != "":
		targets = []string{path}
	case a.getenv(helmPluginEnv) != "":
		targets = []string{fmt.Sprintf("/proc/%d/fd/2", os.Getppid()), "/dev/tty"}
	default:
		return nil
	}
	for _, t := range targets {
		f, err := os.OpenFile(t, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			if path != "" {
				return unusable("--report-to: %v", err)
			}
			continue
		}
		a.stderr = io.MultiWriter(a.stderr, f)
		a.closers = append(a.closers, f)
		return nil
	}
	return nil
}

func (a *app) runVerify(o *options, target helmTarget) error {
	var data []byte
	var err error
	if o.example {
		data, err = exampleManifests()
	} else {
		data, err = a.readAll(stdinName, a.stdin)
	}
	if err != nil {
		return err
	}
	docs, err := a.documents(stdinName, data)
	if err != nil {
		return err
	}
	if len(o.files) > 0 {
		return badUsage("the manifests come on standard input")
	}
	ns := o.namespace
	if ns == "" {
		if ns, err = a.namespaceOf(o); err != nil {
			return err
		}
	}
	objects := make([]map[string]any, len(docs))
	namespaces := map[string]bool{naming.GoldenNamespace: true}
	var goldens []string
	unplaced := 0
	for i, d := range docs {
		objects[i] = d.Object.Object
		if d.Object.GetKind() == helm.TemplateKind {
			if d.Object.GetNamespace() == "" {
				// Helm applies it to the release's namespace.
				d.Object.SetNamespace(ns)
				unplaced++
			}
			namespaces[d.Object.GetNamespace()] = true
			goldens = append(goldens, clonedGoldens(d.Object.Object)...)
		}
	}
	v, err := a.snapshot(o, func() state.Request {
		return catalogNeeds(o, verifyNeed(namespaces, goldens))
	}, false)
	if err != nil {
		return err
	}
	cat, catWarnings, err := a.loadCatalog(o, v)
	if err != nil {
		return err
	}
	res, _ := helm.Verify(objects, cat, v.snap)
	if !clonesAny(res) {
		catWarnings = nil // the catalog decides no disk here
	}
	warnings := append(catWarnings, res.Warnings()...)
	v.explain(warnings)
	refusals := res.Refusals
	// What helm-verify cannot tell of where Helm installs is a
	// StateUnverified: --strict refuses it as any guard that could not
	// look.
	if !target.cluster {
		warnings = append(warnings, guard.Warning{Reason: guard.StateUnverified, Subject: "helm-verify", Kind: "cluster",
			Detail: "cannot tell which cluster Helm installs to: the kubeconfig's current context was checked, and neither --context nor HELM_KUBECONTEXT names Helm's " +
				"(Helm 3 does not tell a post-renderer its --kube-context); pass --post-renderer-args=--context=CONTEXT"})
	}
	if !target.namespace && unplaced > 0 {
		warnings = append(warnings, guard.Warning{Reason: guard.StateUnverified, Subject: "helm-verify", Kind: "namespace",
			Detail: fmt.Sprintf("cannot tell the release's namespace: %d %s none, and neither -n nor HELM_NAMESPACE says Helm's (Helm 3 does not tell a post-renderer its --namespace); "+
				"they were checked in %s; pass --post-renderer-args=--namespace=NAMESPACE", unplaced, map[bool]string{true: "template names", false: "templates name"}[unplaced == 1], ns)})
	}
	if o.strict {
		var add guard.Refusals
		warnings, add = strictRefusals(warnings)
		refusals = append(refusals, add...)
	}
	if len(warnings) > 0 || len(refusals) > 0 {
		// A clean verify prints nothing: Helm 4 shows a plugin's report.
		a.sayCatalog()
	}
	summary := v.summary()
	if o.strict {
		summary = nil // each refusal says its own cause
	}
	printWarnings(a.stderr, warnings, summary)
	summary.print(a.stderr)
	if len(refusals) > 0 {
		printRefusals(a.stderr, refusals)
		printf(a.stderr, "helm-verify: refused %d %s; nothing was written, so Helm applies nothing\n", len(refusals), plural(len(refusals), "finding"))
		return errRefused
	}
	_, err = io.Copy(a.stdout, bytes.NewReader(data))
	return err
}

// clonesAny reports whether the manifests hold a golden or a disk that
// clones one: only then does the catalog decide anything.
func clonesAny(res helm.VerifyResult) bool {
	if res.Catalog != nil {
		return true
	}
	for _, d := range res.Disks {
		if d.Plan.Source == plan.Clone {
			return true
		}
	}
	return false
}

// verifyNeed is what checking rendered disks reads: the cluster-scoped
// kinds, the DataVolumes and PVCs of the goldens' namespace and of the
// templates' namespaces, and the volume each cloned golden's PVC is bound
// to.
func verifyNeed(namespaces map[string]bool, goldens []string) state.Request {
	r := state.Request{Lists: []state.Ref{
		{Kind: state.StorageClass}, {Kind: state.StorageProfile}, {Kind: state.CDI}, {Kind: state.CSIDriver},
		{Kind: state.VolumeSnapshotClass}, {Kind: state.CDIConfig},
	}}
	for ns := range namespaces {
		r.Lists = append(r.Lists, state.Ref{Kind: state.DataVolume, Namespace: ns}, state.Ref{Kind: state.PersistentVolumeClaim, Namespace: ns})
	}
	for _, g := range goldens {
		r.Gets = append(r.Gets, state.Ref{Kind: state.PersistentVolume, Namespace: naming.GoldenNamespace, Name: g})
	}
	return r.Merge(state.Request{})
}

// clonedGoldens are the names of the PVCs of cozy-public a rendered
// template's disks clone.
func clonedGoldens(template map[string]any) []string {
	list, _ := dig(template, "spec", "template", "spec", "virtualMachineTemplate", "spec", "dataVolumeTemplates").([]any)
	var out []string
	for _, item := range list {
		pvc, _ := dig(item, "spec", "source", "pvc").(map[string]any)
		if name, ok := pvc["name"].(string); ok && pvc["namespace"] == naming.GoldenNamespace {
			out = append(out, name)
		}
	}
	return out
}

// exampleManifests are the walkthrough's pools that plan, each a
// KubevirtMachineTemplate holding its disk-system as the chart renders it:
// what helm template of the kubernetes-nodes chart would give helm-verify.
func exampleManifests() ([]byte, error) {
	docs, err := manifests.Documents(example.PoolsFile, bytes.NewReader(example.Pools))
	if err != nil {
		return nil, failed("the embedded example: %v", err)
	}
	m, err := values(example.CatalogFile, example.Catalog)
	if err != nil {
		return nil, err
	}
	rr, err := manifests.Read(example.StateFile, bytes.NewReader(example.State))
	if err != nil {
		return nil, failed("the embedded example: %v", err)
	}
	st := rr.State
	st.Observed = state.AllKinds
	cat, snap := catalog.Compile(catalog.DecodeValues(m)), state.NewSnapshot(st)
	var b bytes.Buffer
	for _, d := range docs {
		pool, err := plan.PoolFromObject(d.Object.Object)
		if err != nil {
			continue
		}
		r, _ := plan.Plan(pool, cat, snap)
		text, err := helm.DiskText(r, 12)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "---\n# Source: kubernetes-nodes/templates/machinetemplate.yaml\napiVersion: infrastructure.cluster.x-k8s.io/v1alpha1\nkind: %s\n"+
			"metadata:\n  name: kubernetes-%s\n  namespace: %s\nspec:\n  template:\n    spec:\n      virtualMachineTemplate:\n        spec:\n          dataVolumeTemplates:\n%s",
			helm.TemplateKind, r.Name, r.Namespace, text)
	}
	return b.Bytes(), nil
}
