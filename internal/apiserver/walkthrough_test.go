package apiserver_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/consoleblock"
)

// stateObjects are the objects of a kubectl get -o yaml List, without what
// the server sets (uid, resourceVersion, creationTimestamp, generation,
// managedFields), as they can be created again.
func stateObjects(t *testing.T, path string) []client.Object {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	require.NoError(t, yaml.Unmarshal(data, &list))
	var objs []client.Object
	for _, item := range list.Items {
		u := &unstructured.Unstructured{Object: item}
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
			unstructured.RemoveNestedField(u.Object, "metadata", f)
		}
		objs = append(objs, u)
	}
	return objs
}

// The walkthrough's document and the files its runs read, relative to the
// repository's root.
const (
	walkthroughDoc   = "docs/cli.md"
	walkthroughState = "examples/cli/state.yaml"
	walkthroughCat   = "examples/cli/catalog.yaml"
)

// liveRefused are the walkthrough's runs whose plan is refused (exit
// status 3) on the live cluster as from the files; every other run but
// those of liveDiffers and notLive exits 0.
var liveRefused = []string{
	"./worker-image plan -f examples/cli/refused.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml",
	"sed 's/storage: 6Gi/storage: 8Gi/' examples/cli/catalog.yaml | ./worker-image catalog render --catalog - --state examples/cli/state.yaml",
	"./worker-image diff -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --set talos.version=v1.13.7 --cozystack-values examples/cli/cozystack-values.yaml",
}

// liveDiffer is how a run's live output differs from the document's, and
// why: the document's lines that drop, and text replaced in the others
// (old, new, in order), or the run of the document whose output it prints
// instead.
type liveDiffer struct {
	why     string
	drop    []string // prefixes of the lines that drop
	replace []string // old, new, ...
	sameAs  string
}

// liveDiffers are the runs whose document output says that state.yaml was
// observed in part: a file holds the namespaces it was dumped from, and
// the kinds it holds an object of, so a kind it lacks (DataSource,
// KubernetesNodes, HelmRelease) or one it cannot say it holds whole hides
// a consumer. A cluster's lists are every namespace's, every kind read: the
// warnings, notes and "unverified" lines that name the file drop, the
// counts lose their "at least", and the exit status is 0 where the
// document's is 4.
var liveDiffers = map[string]liveDiffer{
	"./worker-image catalog render --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml": {
		why:     "the blast radius is counted in every namespace, of every kind: exact, not a lower bound",
		drop:    []string{"  (the counts are lower bounds: "},
		replace: []string{"no pool or template seen points at it", "no pool or template points at it", ": at least 1 pool", ": 1 pool"},
	},
	"./worker-image catalog consumers talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.12.4 --state examples/cli/state.yaml": {
		why:     "every kind that may clone the golden is read: the consumers are all of them, verified",
		drop:    []string{"catalog: warning StateUnverified at consumers: ", "unverified: the consumers of "},
		replace: []string{": unverified, at least 3 consumers; at least 1 pool", ": 3 consumers; 1 pool"},
	},
	"./worker-image catalog prune --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml": {
		why:    "what --observed all says of the file, the cluster's lists are: the run prints the document's run with --observed all",
		sameAs: "./worker-image catalog prune --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --observed all",
	},
}

// notLive are the walkthrough's runs that take --state and cannot agree on
// a cluster, and why; each still runs, and its reason is asserted.
var notLive = map[string]string{
	"./worker-image plan -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --max-input-bytes 32Ki": "the input over --max-input-bytes is state.yaml itself; a live read is bounded per list page, not by that flag, so the run plans (exit status 0)",
}

// liveArgs is a document's run with its --state file (and --observed,
// which speaks of that file) dropped and the cluster of kubeconfig read
// instead; without catalog, --catalog of the example file drops too, and
// the run reads the catalog release.
func liveArgs(args []string, kubeconfig string, catalog bool) []string {
	var live []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--state" || args[i] == "--observed" || (!catalog && args[i] == "--catalog" && i+1 < len(args) && args[i+1] == walkthroughCat) {
			i++
			continue
		}
		live = append(live, args[i])
	}
	return append(live, "--kubeconfig", kubeconfig)
}

// expectedLive is the output a run of the document prints on the cluster:
// the document's, or as d says it differs.
func expectedLive(t *testing.T, doc []string, d liveDiffer, steps []consoleblock.Step) []string {
	t.Helper()
	if d.sameAs != "" {
		i := slices.IndexFunc(steps, func(s consoleblock.Step) bool { return s.Line == d.sameAs })
		require.GreaterOrEqual(t, i, 0, "the document shows no run %q any more", d.sameAs)
		return steps[i].Output
	}
	var out []string
	dropped := 0
	for _, l := range doc {
		if slices.ContainsFunc(d.drop, func(p string) bool { return strings.HasPrefix(l, p) }) {
			dropped++
			continue
		}
		for i := 0; i+1 < len(d.replace); i += 2 {
			l = strings.Replace(l, d.replace[i], d.replace[i+1], 1)
		}
		out = append(out, l)
	}
	require.NotZero(t, dropped+len(d.replace), "a difference that changes nothing")
	require.NotEqual(t, doc, out, "the document no longer shows what the live run drops or replaces; update liveDiffers")
	return out
}

// TestLiveWalkthrough runs the walkthrough of the command's page on a
// cluster that holds what its files describe: the objects of state.yaml
// created in a control plane of the test's own (with their statuses), and
// the catalog release whose values are catalog.yaml. Each run of the page
// that reads --state runs with --kubeconfig of that cluster instead, and
// prints what the page shows, byte for byte (elisions aside), with the
// page's exit status; liveDiffers says exactly where a live read must
// differ and notLive which runs cannot agree, each with its reason. Each
// run that names the example catalog runs once more without --catalog,
// reading the catalog release, and prints the same: the release and the
// file are one catalog.
func TestLiveWalkthrough(t *testing.T) {
	e := apiserver.Separate(t)
	_, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{helmReleaseCRD()}})
	require.NoError(t, err, "install the HelmRelease CRD")
	t.Chdir(filepath.Join("..", ".."))
	objs := stateObjects(t, walkthroughState)
	require.Greater(t, len(objs), 20, "state.yaml's objects")
	e.Create(t, objs...)
	catalog, err := os.ReadFile(walkthroughCat)
	require.NoError(t, err)
	var values map[string]any
	require.NoError(t, yaml.Unmarshal(catalog, &values))
	ref := webhook.DefaultCatalogRelease()
	e.Create(t, helmRelease(ref.Namespace, ref.Name, map[string]any{
		"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-kubernetes-worker-image-default-kubernetes-worker-image"},
		"values":   values,
	}))
	t.Setenv("KUBECONFIG", "")
	kc := kubeconfigOf(t, e.Config, "default")

	page, err := os.ReadFile(walkthroughDoc)
	require.NoError(t, err)
	steps, err := consoleblock.Steps(string(page))
	require.NoError(t, err)
	ran := map[string]bool{}
	for _, s := range steps {
		args, stdin, err := consoleblock.Command(s.Line)
		require.NoError(t, err)
		if !slices.Contains(args, "--state") || !slices.Contains(args, walkthroughState) {
			continue
		}
		ran[s.Line] = true
		t.Run(s.Line, func(t *testing.T) {
			want, wantCode := s.Output, 0
			if slices.Contains(liveRefused, s.Line) {
				wantCode = 3
			}
			if d, ok := liveDiffers[s.Line]; ok {
				want = expectedLive(t, s.Output, d, steps)
			}
			code, stdout, stderr := run(t, stdin, liveArgs(args, kc, true)...)
			got := strings.Split(strings.TrimSuffix(stdout+stderr, "\n"), "\n")
			if why, ok := notLive[s.Line]; ok {
				assert.Equal(t, 0, code, "%s\n%s%s", why, stdout, stderr)
				assert.NotContains(t, stdout+stderr, "larger than", why)
				return
			}
			assert.Equal(t, wantCode, code, "exit status\n%s%s", stdout, stderr)
			if !consoleblock.Matches(got, want) {
				t.Errorf("the live output differs from the page's\n--- page (as a live read prints it)\n%s\n--- got\n%s%s", strings.Join(want, "\n"), stdout, stderr)
			}
			if !slices.Contains(args, walkthroughCat) {
				return
			}
			// The one difference: a line on standard error names where the
			// catalog was read, since no flag does (render prints it before
			// the unmanaged goldens, the others last).
			code2, stdout2, stderr2 := run(t, stdin, liveArgs(args, kc, false)...)
			assert.Equal(t, code, code2, "exit status with the catalog release\n%s", stderr2)
			assert.Equal(t, stdout, stdout2, "the catalog release and catalog.yaml are one catalog")
			source := "catalog: the values of the HelmRelease " + ref.Namespace + "/" + ref.Name + "\n"
			assert.Equal(t, 1, strings.Count(stderr2, source), "the run names the release it read once\n%s", stderr2)
			assert.Equal(t, stderr, strings.Replace(stderr2, source, "", 1),
				"the catalog release and catalog.yaml are one catalog: only the line naming the release differs")
		})
	}
	for _, line := range slices.Concat(liveRefused, slices.Collect(maps.Keys(liveDiffers)), slices.Collect(maps.Keys(notLive))) {
		assert.True(t, ran[line], "the page runs %q no more; update liveRefused, liveDiffers or notLive", line)
	}
	for _, kind := range []string{"plan ", "catalog consumers ", "catalog prune ", "catalog render ", "diff "} {
		assert.True(t, slices.ContainsFunc(slices.Collect(maps.Keys(ran)), func(l string) bool { return strings.Contains(l, "./worker-image "+kind) }),
			"no run of %q read --state: the live walkthrough checks none", kind)
	}
}
