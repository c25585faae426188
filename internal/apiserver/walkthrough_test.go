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

// liveWalkthrough is a page whose runs read a --state file: the file, the
// catalog file its runs name and the release that holds those values in a
// cluster, and the commands that must be among its runs.
type liveWalkthrough struct {
	doc, state    string
	flag, catalog string
	release       [2]string // namespace, name
	chartRef      map[string]any
	commands      []string
}

// liveWalkthroughs are the command's page, on state.yaml and the worker
// catalog, and the VM disks' page, on vmstate.yaml and the image catalog,
// paths relative to the repository's root.
var liveWalkthroughs = []liveWalkthrough{{
	doc: "docs/cli.md", state: "examples/cli/state.yaml",
	flag: "--catalog", catalog: "examples/cli/catalog.yaml",
	release:  [2]string{webhook.DefaultCatalogRelease().Namespace, webhook.DefaultCatalogRelease().Name},
	chartRef: map[string]any{"kind": "ExternalArtifact", "name": "cozystack-kubernetes-worker-image-default-kubernetes-worker-image"},
	commands: []string{"plan ", "catalog consumers ", "catalog prune ", "catalog render ", "diff "},
}, {
	doc: "docs/vmdisks.md", state: "examples/cli/vmstate.yaml",
	flag: "--images", catalog: "examples/cli/images.yaml",
	release:  [2]string{"cozy-system", "vm-default-images"},
	commands: []string{"plan ", "catalog images render ", "catalog images consumers ", "catalog images prune "},
}}

// liveRefused are the walkthrough's runs whose plan is refused (exit
// status 3) on the live cluster as from the files; every other run but
// those of liveDiffers and notLive exits 0.
var liveRefused = []string{
	"./worker-image plan -f examples/cli/refused.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml",
	"sed 's/storage: 6Gi/storage: 8Gi/' examples/cli/catalog.yaml | ./worker-image catalog render --catalog - --state examples/cli/state.yaml",
	"./worker-image diff -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --set talos.version=v1.13.7 --cozystack-values examples/cli/cozystack-values.yaml",
	"./worker-image plan -f examples/cli/vmdisks.yaml --images examples/cli/images.yaml --state examples/cli/vmstate.yaml",
	"sed 's/storage: 20Gi/storage: 5Gi/' examples/cli/vmdisks.yaml | ./worker-image plan -f - --images examples/cli/images.yaml --state examples/cli/vmstate.yaml",
	"sed 's/storage: 20Gi/storage: 30Gi/' examples/cli/images.yaml | ./worker-image catalog images render --images - --state examples/cli/vmstate.yaml",
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
	"./worker-image catalog images prune --images examples/cli/images.yaml --state examples/cli/vmstate.yaml": {
		why:    "what --observed all says of the file, the cluster's lists are: the run prints the document's run with --observed all",
		sameAs: "./worker-image catalog images prune --images examples/cli/images.yaml --state examples/cli/vmstate.yaml --observed all",
	},
	"./worker-image catalog images render --images examples/cli/images.yaml --state examples/cli/vmstate.yaml": {
		why:  "the file holds no VirtualMachine, DataSource or HelmRelease, kinds that may clone the dropped golden; the cluster's lists are read whole: the warnings that say they were not observed drop",
		drop: []string{"image catalog: warning StateUnverified at images: "},
	},
}

// liveBugs are runs whose live output is wrong, and how: each is asserted
// as it is, so that the fix fails the test, which then says to drop the
// entry; the page is right.
var liveBugs = map[string]liveDiffer{}

// notLive are the walkthrough's runs that take --state and cannot agree on
// a cluster, and why; each still runs, and its reason is asserted.
var notLive = map[string]string{
	"./worker-image plan -f examples/cli/pools.yaml --catalog examples/cli/catalog.yaml --state examples/cli/state.yaml --max-input-bytes 32Ki": "the one input over --max-input-bytes is state.yaml itself, which a live run does not read: it plans (exit status 0)",
}

// liveArgs is a document's run with its --state file (and --observed,
// which speaks of that file) dropped and the cluster of kubeconfig read
// instead; without catalog, w's catalog flag and file drop too, and the
// run reads the release.
func liveArgs(w liveWalkthrough, args []string, kubeconfig string, catalog bool) []string {
	var live []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--state" || args[i] == "--observed" || (!catalog && args[i] == w.flag && i+1 < len(args) && args[i+1] == w.catalog) {
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

// TestLiveWalkthrough runs the walkthroughs of the command's page and of
// the VM disks' page on a cluster that holds what their files describe:
// the objects of the state file created in a control plane of the test's
// own (with their statuses), and the catalog release whose values are the
// catalog file. Each run of the page that reads --state runs with
// --kubeconfig of that cluster instead, and prints what the page shows
// (elisions aside) with the page's exit status; liveDiffers says exactly
// where a live read must differ and notLive which runs cannot agree, each
// with its reason. Each run that names the catalog file runs once more
// without it, reading the release, and prints the same but for one line
// that names the release: the release and the file are one catalog.
func TestLiveWalkthrough(t *testing.T) {
	apiserver.Get(t) // skips as the suite does without the binaries
	t.Chdir(filepath.Join("..", ".."))
	t.Setenv("KUBECONFIG", "")
	ran := map[string]bool{}
	for _, w := range liveWalkthroughs {
		t.Run(w.doc, func(t *testing.T) { liveRuns(t, w, ran) })
	}
	for _, line := range slices.Concat(liveRefused, slices.Collect(maps.Keys(liveDiffers)), slices.Collect(maps.Keys(liveBugs)), slices.Collect(maps.Keys(notLive))) {
		// A page that -run left out ran nothing.
		if slices.ContainsFunc(liveWalkthroughs, func(w liveWalkthrough) bool { return ran[w.doc] && strings.Contains(line, "--state "+w.state) }) {
			assert.True(t, ran[line], "no page runs %q any more; update liveRefused, liveDiffers, liveBugs or notLive", line)
		}
	}
}

// liveRuns runs w's --state runs on a cluster of w's files, and records
// each in ran.
func liveRuns(t *testing.T, w liveWalkthrough, ran map[string]bool) {
	e := apiserver.Separate(t)
	_, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{helmReleaseCRD()}})
	require.NoError(t, err, "install the HelmRelease CRD")
	objs := stateObjects(t, w.state)
	require.Greater(t, len(objs), 10, "%s's objects", w.state)
	e.Create(t, objs...)
	catalog, err := os.ReadFile(w.catalog)
	require.NoError(t, err)
	var values map[string]any
	require.NoError(t, yaml.Unmarshal(catalog, &values))
	spec := map[string]any{"values": values}
	if w.chartRef != nil {
		spec["chartRef"] = w.chartRef
	}
	e.Create(t, helmRelease(w.release[0], w.release[1], spec))
	kc := kubeconfigOf(t, e.Config, "default")

	ran[w.doc] = true
	page, err := os.ReadFile(w.doc)
	require.NoError(t, err)
	steps, err := consoleblock.Steps(string(page))
	require.NoError(t, err)
	var live []string
	for _, s := range steps {
		args, stdin, err := consoleblock.Command(s.Line)
		require.NoError(t, err)
		if !slices.Contains(args, "--state") || !slices.Contains(args, w.state) {
			continue
		}
		ran[s.Line] = true
		live = append(live, s.Line)
		t.Run(s.Line, func(t *testing.T) {
			want, wantCode := s.Output, 0
			if slices.Contains(liveRefused, s.Line) {
				wantCode = 3
			}
			why := "the page's output"
			if d, ok := liveDiffers[s.Line]; ok {
				want, why = expectedLive(t, s.Output, d, steps), d.why
			}
			code, stdout, stderr := run(t, stdin, liveArgs(w, args, kc, true)...)
			got := strings.Split(strings.TrimSuffix(stdout+stderr, "\n"), "\n")
			if d, ok := liveBugs[s.Line]; ok {
				if consoleblock.Matches(got, want) {
					t.Errorf("live, the run prints what the page shows now: drop it from liveBugs (%s)", d.why)
				}
				want, why = expectedLive(t, s.Output, d, steps), "a bug: "+d.why
			}
			if why, ok := notLive[s.Line]; ok {
				assert.Equal(t, 0, code, "%s\n%s%s", why, stdout, stderr)
				assert.NotContains(t, stdout+stderr, "larger than", why)
				return
			}
			assert.Equal(t, wantCode, code, "exit status\n%s%s", stdout, stderr)
			if !consoleblock.Matches(got, want) {
				t.Errorf("the live output differs from the page's\n--- page (as a live read prints it: %s)\n%s\n--- got\n%s%s", why, strings.Join(want, "\n"), stdout, stderr)
			}
			if !slices.Contains(args, w.catalog) {
				return
			}
			// The one difference: a line on standard error names the
			// release the catalog was read from, since no flag does.
			code2, stdout2, stderr2 := run(t, stdin, liveArgs(w, args, kc, false)...)
			assert.Equal(t, code, code2, "exit status with the catalog release\n%s", stderr2)
			assert.Equal(t, stdout, stdout2, "the catalog release and %s are one catalog", w.catalog)
			lines := strings.SplitAfter(stderr2, "\n")
			named := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "HelmRelease "+w.release[0]+"/"+w.release[1]) })
			if !assert.GreaterOrEqual(t, named, 0, "the run names the release it read\n%s", stderr2) {
				return
			}
			assert.Equal(t, stderr, strings.Join(slices.Delete(lines, named, named+1), ""),
				"the catalog release and %s are one catalog: only the line naming the release differs", w.catalog)
		})
	}
	for _, c := range w.commands {
		assert.True(t, slices.ContainsFunc(live, func(l string) bool { return strings.Contains(l, "./worker-image "+c) }),
			"no run of %q on %s reads --state: the live walkthrough checks none", c, w.doc)
	}
}
