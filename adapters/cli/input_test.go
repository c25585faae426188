package cli_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnusableInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	badYAML := write(t, "bad.yaml", poolDoc("demo-md0", "osImage: {builtin: {}}")+"---\nkind: KubernetesNodes\nmetadata:\n  name: [a\n")
	notObject := write(t, "list.yaml", "- a\n- b\n")
	noPools := write(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	badState := write(t, "state.yaml", "apiVersion: v1\nkind: List\nitems:\n- kind: StorageClass\n  metadata: {name: a\n")
	onePool := write(t, "one.yaml", poolDoc("demo-md0", ""))
	badCatalog := write(t, "catalog.yaml", "enabled: true\nimages:\n  - schematicID: x\n version: y\n")
	// Two pools concatenated without the "---" between them.
	twoPools := write(t, "dup.yaml", poolDoc("demo-md0", "osImage: {builtin: {}}")+poolDoc("demo-md1", "osImage: {builtin: {}}"))
	dupState := write(t, "dupstate.yaml", readExample(t, exampleState)+"- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata:\n    name: a\n    namespace: t\n    namespace: u\n")
	cases := map[string]struct {
		reason string
		args   []string
		stderr []string
	}{
		"missing file": {
			reason: "a file that cannot be read",
			args:   []string{"plan", "-f", missing},
			stderr: []string{missing, "no such file"},
		},
		"YAML syntax": {
			reason: "YAML that does not parse is named by file and line",
			args:   []string{"plan", "-f", badYAML},
			stderr: []string{badYAML + ":12:"},
		},
		"not an object": {
			reason: "a document that is not a Kubernetes object",
			args:   []string{"plan", "-f", notObject},
			stderr: []string{notObject + ":1:"},
		},
		"no pools": {
			reason: "a POOL file without KubernetesNodes",
			args:   []string{"plan", "-f", noPools},
			stderr: []string{"holds no KubernetesNodes", "skipped v1 ConfigMap x"},
		},
		"state syntax": {
			reason: "a --state file that does not parse is named by file and line",
			args:   []string{"plan", "-f", examplePools, "--state", badState},
			stderr: []string{badState + ":5:"},
		},
		"pools run together": {
			reason: "a key twice in a pool file (a lost ---) is refused, not read as the last pool alone",
			args:   []string{"plan", "-f", twoPools},
			stderr: []string{twoPools + ":9:", `key "apiVersion" repeats the one at line 1`, "is a `---` missing between two documents?"},
		},
		"state key twice": {
			reason: "a key twice in a --state file is refused as kubectl refuses it",
			args:   []string{"plan", "-f", examplePools, "--state", dupState},
			stderr: []string{dupState + ":", `key "namespace" repeats`, "is a `---` missing between two documents?"},
		},
		"catalog syntax": {
			reason: "a --catalog file that does not parse is named by file and line",
			args:   []string{"plan", "-f", examplePools, "--catalog", badCatalog},
			stderr: []string{badCatalog + ":3:"},
		},
		"unknown flag": {
			reason: "a flag the command does not have",
			args:   []string{"plan", "--frobnicate", "-f", examplePools},
			stderr: []string{"unknown flag: --frobnicate", "plan -h"},
		},
		"bad output": {
			reason: "an output format the command does not write",
			args:   []string{"catalog", "render", "--example", "-o", "chart"},
			stderr: []string{`-o "chart"`},
		},
		"state and kubeconfig": {
			reason: "two sources of state",
			args:   []string{"plan", "-f", examplePools, "--state", exampleState, "--kubeconfig", missing},
			stderr: []string{"--state and --kubeconfig"},
		},
		"missing kubeconfig": {
			reason: "a kubeconfig that cannot be read",
			args:   []string{"plan", "-f", examplePools, "--kubeconfig", missing},
			stderr: []string{"kubeconfig " + missing},
		},
		"no -f": {
			reason: "plan needs pools",
			args:   []string{"plan"},
			stderr: []string{"name the pools: -f POOL.yaml"},
		},
		"unknown command": {
			reason: "a command that does not exist",
			args:   []string{"deploy"},
			stderr: []string{`no command "deploy"`},
		},
		"unknown catalog command": {
			reason: "a catalog command that does not exist",
			args:   []string{"catalog", "delete"},
			stderr: []string{`no command "catalog delete"`},
		},
		"no command": {
			reason: "no arguments at all",
			args:   nil,
			stderr: []string{"Commands:"},
		},
		"consumers without state": {
			reason: "consumers reads the cluster",
			args:   []string{"catalog", "consumers", "x"},
			stderr: []string{"pass --state, or --kubeconfig"},
		},
		"consumers without golden": {
			reason: "consumers names one golden",
			args:   []string{"catalog", "consumers", "--example"},
			stderr: []string{"name one golden"},
		},
		"prune without catalog": {
			reason: "prune compares against the catalog",
			args:   []string{"catalog", "prune", "--state", exampleState},
			stderr: []string{"--catalog CATALOG.yaml is required"},
		},
		"name with a document": {
			reason: "--name reads bare values, not a KubernetesNodes document",
			args:   []string{"plan", "-f", onePool, "--name", "demo-md0"},
			stderr: []string{"holds a KubernetesNodes"},
		},
		"example with files": {
			reason: "--example brings its own files",
			args:   []string{"plan", "--example", "-f", examplePools},
			stderr: []string{"--example"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := exe(t, "", tc.args...)
			if r.code != 2 {
				t.Errorf("%s: exit %d, want 2\nstderr: %s", tc.reason, r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("%s: nothing on stdout, got:\n%s", tc.reason, r.stdout)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("%s: stderr lacks %q:\n%s", tc.reason, want, r.stderr)
				}
			}
		})
	}
}

func TestValuesRefused(t *testing.T) {
	// A catalog whose values have the wrong type is refused, with its path.
	cat := write(t, "catalog.yaml", "enabled: 'yes'\nimages: [{schematicID: abc, version: v1.0.0, storage: [6]}]\n")
	// The pool that clones is refused with the catalog's paths; the HTTP
	// pool, which never reads the catalog, still plans.
	r := exe(t, "", "plan", "-f", examplePools, "--catalog", cat, "-o", "json")
	got := decodePlan(t, r.stdout)
	if r.code != 3 || len(got) != 2 || got[0].Outcome != "refused" || got[1].Outcome != "planned" ||
		!reflect.DeepEqual(got[0].Refusals, []finding{{"InvalidValue", "enabled"}, {"InvalidValue", "images[0].storage"}}) {
		t.Errorf("exit %d, pools %+v\n%s", r.code, got, r.stderr)
	}
	render := exe(t, "", "catalog", "render", "--catalog", cat, "-o", "json")
	if render.code != 3 || !strings.Contains(render.stdout, `"refusals": [`) || !strings.Contains(render.stdout, `"field": "images[0].storage"`) {
		t.Errorf("catalog render prints its refusals in its shape: exit %d\n%s", render.code, render.stdout)
	}
	// A pool whose spec is not a map is refused, its neighbours planned.
	pools := write(t, "pools.yaml", poolDoc("demo-md1", "")+"---\napiVersion: apps.cozystack.io/v1alpha1\nkind: KubernetesNodes\nmetadata: {name: demo-md2, namespace: t}\nspec: [x]\n")
	r = exe(t, "", "plan", "-f", pools, "-o", "json")
	got = decodePlan(t, r.stdout)
	if r.code != 3 || len(got) != 2 || got[0].Outcome != "planned" || got[1].Outcome != "refused" || got[1].Refusals[0] != (finding{"InvalidValue", "spec"}) {
		t.Errorf("exit %d, pools %+v", r.code, got)
	}
}

func TestClusterUnreachable(t *testing.T) {
	// A cluster that cannot be read is status 1, not a refusal.
	kubeconfig := write(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`)
	r := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--kubeconfig", kubeconfig)
	if r.code != 1 || !strings.Contains(r.stderr, "read the cluster") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestSkippedKinds(t *testing.T) {
	// Objects of kinds the library does not read are skipped with a note.
	st := readExample(t, exampleState) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: z1}\n"
	r := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", write(t, "s.yaml", st))
	if r.code != 0 || !strings.Contains(r.stderr, "note: ") || !strings.Contains(r.stderr, "ConfigMap z1/x") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

func TestHelp(t *testing.T) {
	r := exe(t, "", "help")
	for _, want := range []string{"catalog ", "plan ", "computeplane ", "helm-verify ", "completion ", "plan --example"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("help lists %q: exit %d, stdout:\n%s", want, r.code, r.stdout)
		}
	}
	// Help at every level: catalog -h lists its subcommands.
	c := exe(t, "", "catalog", "-h")
	for _, want := range []string{"render ", "consumers ", "prune "} {
		if c.code != 0 || !strings.Contains(c.stdout, "\n  "+want) {
			t.Errorf("catalog -h lists %q: exit %d, stdout:\n%s", want, c.code, c.stdout)
		}
	}
	for _, cmd := range [][]string{{"plan"}, {"catalog", "render"}, {"catalog", "consumers"}, {"catalog", "prune"}, {"computeplane"}, {"helm-verify"}} {
		r := exe(t, "", append(cmd, "-h")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:\n  worker-image "+strings.Join(cmd, " ")) && !strings.Contains(r.stdout, "| worker-image "+strings.Join(cmd, " ")) {
			t.Errorf("%v -h: exit %d, stdout:\n%s", cmd, r.code, r.stdout)
		}
		if h := exe(t, "", append([]string{"help"}, cmd...)...); h.stdout != r.stdout {
			t.Errorf("help %v differs from %v -h", cmd, cmd)
		}
		if long := exe(t, "", append(cmd, "--help")...); long.stdout != r.stdout {
			t.Errorf("%v --help differs from -h", cmd)
		}
	}
}

func TestKubectlPlugin(t *testing.T) {
	// Installed as kubectl-worker_image, it names itself as kubectl runs it.
	plugin := filepath.Join(t.TempDir(), "kubectl-worker_image")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plugin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	r := exePath(t, plugin, "", "plan", "-h")
	if r.code != 0 || !strings.Contains(r.stdout, "kubectl worker-image plan --example") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if r := exePath(t, plugin, "", "plan", "--example", "-o", "json"); r.code != 0 || !strings.Contains(r.stdout, `"pools"`) {
		t.Errorf("the plugin plans: exit %d", r.code)
	}
}

// TestStateFromWhereverItComes: a state file plans the same read from a
// regular file (decoded where it lies), from standard input, and from a
// named pipe whose writer has written all of it before the planner opens it
// (read from the one descriptor opened: opening the pipe twice would lose
// it and wait for a writer that never comes).
func TestStateFromWhereverItComes(t *testing.T) {
	state := readExample(t, exampleState)
	want := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
	require.Equal(t, 0, want.code, want.stderr)

	stdin := exe(t, state, "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", "-", "-o", "json")
	assert.Equal(t, want, stdin, "from standard input")

	fifo := filepath.Join(t.TempDir(), "state.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for the planner to open it
		if err == nil {
			_, err = f.WriteString(state)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		wrote <- err
	}()
	piped := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", fifo, "-o", "json")
	require.NoError(t, <-wrote)
	assert.Equal(t, want, piped, "from a named pipe")
}
